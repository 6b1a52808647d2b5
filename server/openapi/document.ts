import { z } from 'zod';
import { ERROR_CATALOGUE, type ErrorCode } from '../http/error-catalogue.js';
import type { OpenApiRegistry, OperationSpec, ResponseSpec } from './registry.js';
import { problemSchema } from './problem.schema.js';

type Json = Record<string, unknown>;

/** Errors any authenticated operation can answer, whatever it declares. */
const AUTHENTICATED_ERRORS: ErrorCode[] = ['unauthorized', 'plan_required', 'rate_limited', 'internal'];

/**
 * Answered before the rate limiter has counted the request (server/http/define-route.ts
 * runs auth first), so these responses carry no `RateLimit` headers.
 */
const BEFORE_RATE_LIMIT: ReadonlySet<ErrorCode> = new Set(['unauthorized', 'plan_required']);

/** A zod schema as an OpenAPI 3.1 (JSON Schema 2020-12) schema object. */
export function toSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const json = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override: keepNumberDefault,
  }) as Json;
  delete json['$schema'];
  return json;
}

/**
 * zod drops `default` from the input side of a transform, and numeric query
 * parameters are text parsed to numbers (data/number-text.ts); `limit`'s
 * default of 20 is still what a client gets by leaving it out.
 */
function keepNumberDefault(ctx: { zodSchema: unknown; jsonSchema: Json }): void {
  const def = (ctx.zodSchema as { _zod?: { def?: { type?: string; defaultValue?: unknown } } })._zod?.def;
  if (def?.type === 'default' && typeof def.defaultValue === 'number') ctx.jsonSchema['default'] = def.defaultValue;
}

/** Builds the OpenAPI 3.1 document from everything registered. */
export function buildOpenApiDocument(
  registry: OpenApiRegistry,
  info: { version: string; serverUrl: string | null },
): Json {
  const paths: Record<string, Json> = {};
  for (const op of [...registry.operations].sort((a, b) => a.path.localeCompare(b.path))) {
    paths[op.path] = { ...(paths[op.path] ?? {}), [op.method]: operationObject(op) };
  }
  const schemas: Json = { Problem: toSchema(problemSchema, 'output') };
  for (const [name, schema] of registry.schemas) schemas[name] = toSchema(schema, 'output');
  const webhooks: Json = {};
  for (const hook of registry.webhooks) {
    webhooks[hook.name] = {
      post: {
        summary: hook.summary,
        description: hook.description,
        operationId: `webhook_${hook.name.replaceAll('.', '_')}`,
        requestBody: { required: true, content: { 'application/json': { schema: toSchema(hook.payload, 'output') } } },
        responses: { 200: { description: 'Any 2xx within the timeout acknowledges the delivery' } },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Creator Data Service API',
      version: info.version,
      description:
        'Creator search, profiles, verification, lists, campaigns, webhooks and exports. Errors are RFC 9457 problem+json; see the `code` member.',
    },
    servers: [{ url: info.serverUrl ?? '/' }],
    security: [{ bearer: [] }],
    paths,
    webhooks,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer cds_…`' },
      },
      schemas,
      headers: COMMON_HEADERS,
    },
  };
}

const COMMON_HEADERS: Json = {
  'X-Request-Id': { description: 'The request id (yours when you sent a sane one)', schema: { type: 'string' } },
  'RateLimit-Policy': { description: 'The rate-limit policy, e.g. `"minute";q=120;w=60`', schema: { type: 'string' } },
  RateLimit: {
    description:
      'Requests that would pass now (`r`) and seconds until the quota is full again, or with `r=0` until the next request passes (`t`), e.g. `"minute";r=87;t=31`',
    schema: { type: 'string' },
  },
};

function operationObject(op: OperationSpec): Json {
  const parameters = [...paramsOf(op.params, 'path'), ...paramsOf(op.query, 'query')];
  if (op.idempotent) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Replays the first response for 24 h when sent again with the same body; a different body is a 422.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  const out: Json = {
    operationId: op.operationId,
    summary: op.summary,
    tags: op.tags,
    parameters,
    responses: responsesOf(op),
  };
  if (op.description || op.scope) {
    out['description'] = [op.description, op.scope ? `Requires the \`${op.scope}\` scope.` : undefined]
      .filter(Boolean)
      .join('\n\n');
  }
  if (op.public) out['security'] = [];
  if (op.body)
    out['requestBody'] = { required: true, content: { 'application/json': { schema: toSchema(op.body, 'input') } } };
  return out;
}

function paramsOf(schema: z.ZodObject | undefined, where: 'path' | 'query'): Json[] {
  if (!schema) return [];
  const json = toSchema(schema, 'input');
  const props = (json['properties'] ?? {}) as Record<string, Json>;
  const required = new Set((json['required'] ?? []) as string[]);
  return Object.entries(props).map(([name, s]) => {
    const { description, ...rest } = s;
    return { name, in: where, required: where === 'path' || required.has(name), description, schema: rest };
  });
}

function responsesOf(op: OperationSpec): Json {
  const headers = op.public
    ? { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } }
    : {
        'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
        'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
        RateLimit: { $ref: '#/components/headers/RateLimit' },
      };
  const out: Json = {};
  for (const [status, r] of Object.entries(op.responses)) out[status] = responseObject(r, headers);
  const codes = new Set<ErrorCode>([
    ...(op.public ? ['internal' as const] : AUTHENTICATED_ERRORS),
    ...(op.errors ?? []),
  ]);
  if (op.scope) codes.add('insufficient_scope');
  // every operation refuses query parameters it does not declare (define-route.ts `rejectAnyQuery`)
  codes.add('invalid_parameter');
  if (op.body) for (const c of ['invalid_body', 'payload_too_large', 'unsupported_media_type'] as const) codes.add(c);
  if (op.idempotent) codes.add('idempotency_key_reused');
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const extra =
      status === 429
        ? { 'Retry-After': { description: 'Seconds until the next request passes', schema: { type: 'integer' } } }
        : status === 401
          ? { 'WWW-Authenticate': { description: '`Bearer`', schema: { type: 'string' } } }
          : {};
    const counted = list.some((c) => BEFORE_RATE_LIMIT.has(c)) ? { 'X-Request-Id': headers['X-Request-Id'] } : headers;
    out[String(status)] = {
      description:
        list.map((c) => `\`${c}\`: ${ERROR_CATALOGUE[c].when}`).join('; ') +
        (counted === headers ? '' : rateLimitNote(list)),
      headers: { ...counted, ...extra },
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    };
  }
  return out;
}

function rateLimitNote(codes: ErrorCode[]): string {
  const counted = codes.filter((c) => !BEFORE_RATE_LIMIT.has(c));
  return counted.length === 0
    ? ''
    : `. \`RateLimit\` headers come with ${counted.map((c) => `\`${c}\``).join(', ')} only.`;
}

function responseObject(r: ResponseSpec, headers: Json): Json {
  const own: Json = {};
  for (const [name, h] of Object.entries(r.headers ?? {}))
    own[name] = { description: h.description, schema: h.schema ?? { type: 'string' } };
  const out: Json = { description: r.description, headers: { ...headers, ...own } };
  if (r.schema || r.contentType) {
    const types = typeof r.contentType === 'string' ? [r.contentType] : (r.contentType ?? ['application/json']);
    const media = r.schema ? { schema: toSchema(r.schema, 'output') } : {};
    out['content'] = Object.fromEntries(types.map((t) => [t, media]));
  }
  return out;
}
