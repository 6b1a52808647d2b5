import { validate as validateCron } from 'node-cron';
import { z } from 'zod';
import { ENTITY_NAMES } from '../../entities/entity.js';

/** A secret, never written in the file: the name of the environment variable that holds it. */
export const SecretRef = z.strictObject({
  env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'an environment variable name'),
});
export type SecretRef = z.infer<typeof SecretRef>;

/** A plain value, or a secret by reference (header and query values may be either). */
const ValueOrSecret = z.union([z.string(), z.number(), z.boolean(), SecretRef]);
export type ValueOrSecret = z.infer<typeof ValueOrSecret>;

/** A dot path into a JSON value: `items`, `statistics.subscriberCount`, `data.0.id`. */
const JsonPath = z.string().regex(/^[^.\s]+(\.[^.\s]+)*$/, 'a dot path such as statistics.subscriberCount');

const Auth = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('bearer'), token: SecretRef }),
  z.strictObject({
    type: z.literal('api_key_header'),
    name: z.string().regex(/^[A-Za-z0-9-]{1,100}$/, 'a header name'),
    key: SecretRef,
  }),
  z.strictObject({ type: z.literal('api_key_query'), name: z.string().min(1).max(100), key: SecretRef }),
  z.strictObject({ type: z.literal('basic'), username: z.union([z.string(), SecretRef]), password: SecretRef }),
]);
export type SourceAuth = z.infer<typeof Auth>;

const Paginator = z.discriminatedUnion('type', [
  /** One request, no paging. */
  z.strictObject({ type: z.literal('none') }),
  /** The next page's cursor sits in the body; sent back as a query parameter. */
  z.strictObject({ type: z.literal('cursor'), cursor_path: JsonPath, cursor_param: z.string().min(1) }),
  /** The next page's URL sits in the body. */
  z.strictObject({ type: z.literal('next_url'), next_url_path: JsonPath }),
  /** The next page's URL is in the `Link` header, `rel="next"` (RFC 8288). */
  z.strictObject({ type: z.literal('link_header') }),
  z.strictObject({
    type: z.literal('offset'),
    offset_param: z.string().min(1).default('offset'),
    limit_param: z.string().min(1).default('limit'),
    limit: z.number().int().min(1).max(100_000),
    total_path: JsonPath.optional(),
  }),
  z.strictObject({
    type: z.literal('page_number'),
    page_param: z.string().min(1).default('page'),
    start: z.number().int().min(0).default(1),
    size_param: z.string().min(1).optional(),
    size: z.number().int().min(1).max(100_000).optional(),
    total_pages_path: JsonPath.optional(),
  }),
]);
export type SourcePaginator = z.infer<typeof Paginator>;

/** Unit conversions a mapped field may apply, after the value is read. */
export const CONVERSIONS = [
  'number',
  'integer',
  'string',
  'boolean',
  'ratio_to_percent',
  'unix_seconds_to_time',
  'unix_millis_to_time',
] as const;
export type Conversion = (typeof CONVERSIONS)[number];

/** How one entity column is filled: a path in the record, a constant, or the time of the pull. */
const FieldMapping = z.union([
  JsonPath,
  z.strictObject({
    path: JsonPath,
    convert: z.enum(CONVERSIONS).optional(),
    /** Multiplies a number (after `convert`), e.g. 1000 for thousands. */
    scale: z.number().finite().optional(),
    /** A record without the field fails the run (else the column is empty and validation decides). */
    required: z.boolean().default(false),
  }),
  z.strictObject({ const: z.union([z.string(), z.number(), z.boolean(), z.null()]) }),
  z.strictObject({ pulled_at: z.literal(true) }),
]);
/** A mapping as written (its defaults not yet filled in); what `compileMapping` takes. */
export type FieldMapping = z.input<typeof FieldMapping>;

const Schedule = z.string().refine((s) => validateCron(s), 'not a cron expression, e.g. "*/15 * * * *"');
const RetrySettings = z.strictObject({
  attempts: z.number().int().min(1).max(20).default(5),
  base_delay_ms: z.number().int().min(1).max(60_000).default(500),
  max_delay_ms: z.number().int().min(1).max(600_000).default(30_000),
});

const commonFields = {
  entity: z.enum(ENTITY_NAMES),
  /** node-cron, UTC; without one the source runs only on demand (`cds sources run`). */
  schedule: Schedule.optional(),
  description: z.string().max(500).optional(),
  /** Allows `http://` to this machine (127.0.0.1, localhost, ::1) for tests and local mirrors; never a remote host. */
  allow_insecure_localhost: z.boolean().default(false),
  timeout_ms: z.number().int().min(100).max(600_000).default(30_000),
  retry: RetrySettings.prefault({}),
};

const HttpJsonSource = z.strictObject({
  kind: z.literal('http_json'),
  ...commonFields,
  base_url: z.url(),
  path: z.string().default(''),
  params: z.record(z.string(), ValueOrSecret).default({}),
  headers: z.record(z.string().regex(/^[A-Za-z0-9-]{1,100}$/, 'a header name'), ValueOrSecret).default({}),
  auth: Auth.optional(),
  paginator: Paginator.default({ type: 'none' }),
  /** Where the records sit in the body (a dot path); left out, the body itself is the array. */
  records: JsonPath.optional(),
  incremental: z
    .strictObject({
      /** The record field (a dot path, the API's name) whose largest value becomes the watermark. */
      cursor_field: JsonPath,
      /** The query parameter the watermark is sent in. */
      param: z.string().min(1),
      /** Sent on the first run, before there is a watermark; left out, the first run asks for everything. */
      initial: z.union([z.string(), z.number()]).transform(String).optional(),
    })
    .optional(),
  /** Entity column → where its value comes from; left out, record keys named like the entity's columns are taken as they are. */
  fields: z.record(z.string(), FieldMapping).optional(),
  rate_limit: z.strictObject({ requests_per_second: z.number().positive().max(10_000) }).optional(),
  /** Most pages one run pulls; the watermark carries on next time. */
  max_pages: z.number().int().min(1).max(1_000_000).default(10_000),
});
export type HttpJsonSourceConfig = z.infer<typeof HttpJsonSource>;

const RemoteFileSource = z.strictObject({
  kind: z.literal('remote_file'),
  ...commonFields,
  urls: z.array(z.url()).min(1).max(100),
  /** The files' format; left out, told from each URL's extension. */
  format: z.enum(['csv', 'ndjson', 'json', 'parquet']).optional(),
  headers: z.record(z.string().regex(/^[A-Za-z0-9-]{1,100}$/, 'a header name'), ValueOrSecret).default({}),
  auth: Auth.optional(),
});
export type RemoteFileSourceConfig = z.infer<typeof RemoteFileSource>;

export const SourceConfig = z.discriminatedUnion('kind', [HttpJsonSource, RemoteFileSource]);
export type SourceConfig = z.infer<typeof SourceConfig>;

/** Source names become pipeline names: lower-case letters, digits, - and _. */
export const SOURCE_NAME = /^[a-z][a-z0-9_-]{0,62}$/;

/** The whole file: `{"sources": {name: source, …}}`. */
export const SourcesFile = z.strictObject({
  sources: z.record(
    z.string().regex(SOURCE_NAME, 'source names are lower-case letters, digits, - and _'),
    SourceConfig,
  ),
});
