// A small property-based fuzzer over every operation of a live /v1/openapi.json:
// each parameter and body is drawn either from its own schema (valid-looking) or
// from junk, and every answer must be < 500, with a problem+json body for 4xx.
// Used by test/integration/fuzz-api.test.ts (short) and tools/drill-fuzz.ts (long).
import fc from 'fast-check';

type Json = Record<string, unknown>;

/** One operation of the document, flattened for fuzzing. */
export interface FuzzOperation {
  method: string;
  path: string;
  operationId: string;
  pathParams: Array<{ name: string; schema: Json }>;
  queryParams: Array<{ name: string; schema: Json; required: boolean }>;
  body: Json | null;
  public: boolean;
  /** Declares an Idempotency-Key header parameter. */
  idempotent: boolean;
}

/** A request the fuzzer sent that broke the rules (5xx, or a 4xx without a problem body). */
export interface FuzzFinding {
  operation: string;
  status: number;
  request: string;
  problem: string;
}

export interface FuzzOptions {
  baseUrl: string;
  /** Bearer key used on authenticated operations (an enterprise key with a high rate limit). */
  key: string;
  /** Property runs per operation. */
  runsPerOperation: number;
  /** Known-good values for path parameters by name (`handle`, `id`…), keyed `path template` or `*`. */
  knownValues?: Record<string, string[]>;
  seed?: number;
  /** Operations to leave out (operationId), e.g. ones that would shut the service down. */
  skip?: readonly string[];
  log?: (line: string) => void;
}

export interface FuzzReport {
  operations: number;
  requests: number;
  statuses: Record<string, number>;
  findings: FuzzFinding[];
}

/** Flattens `paths` of an OpenAPI 3.1 document into operations. */
export function operationsOf(doc: Json): FuzzOperation[] {
  const out: FuzzOperation[] = [];
  for (const [path, item] of Object.entries((doc['paths'] ?? {}) as Record<string, Json>)) {
    for (const [method, raw] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const op = raw as Json;
      const params = (op['parameters'] ?? []) as Array<{ name: string; in: string; schema?: Json; required?: boolean }>;
      const content = ((op['requestBody'] as Json | undefined)?.['content'] ?? {}) as Record<string, { schema?: Json }>;
      out.push({
        method: method.toUpperCase(),
        path,
        operationId: String(op['operationId'] ?? `${method} ${path}`),
        pathParams: params.filter((p) => p.in === 'path').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        queryParams: params
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: p.name, schema: p.schema ?? {}, required: p.required === true })),
        body: content['application/json']?.schema ?? null,
        public: Array.isArray(op['security']) && (op['security'] as unknown[]).length === 0,
        idempotent: params.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key'),
      });
    }
  }
  return out;
}

const JUNK_STRINGS = [
  '',
  ' ',
  '-1',
  '0',
  '1e309',
  'NaN',
  'null',
  'undefined',
  '%00',
  '\u0000',
  'a'.repeat(3000),
  "'; DROP TABLE creators;--",
  '../../etc/passwd',
  '__proto__',
  'constructor',
  'toString',
  '@',
  '@@',
  '1,2,,3',
  ',',
  'true',
  '[]',
  '{}',
  '9007199254740993',
  '-0',
  '0x10',
  '😀',
  'ﬀ',
  '\n',
  'ver_',
  'lst_zz',
];

/**
 * Numeric text at and past every edge: huge, tiny, negative zero, past 2^53,
 * exponent, hex, padded, empty, separators. The API reads numbers strictly
 * (plain decimal only, bounded), so each must be a 2xx or a 400, never a 5xx.
 */
export const NUMERIC_EXTREME_TEXTS = [
  '1e308',
  '-1e308',
  '1e20',
  '-1e20',
  '-0',
  '9007199254740993',
  '1e5',
  '0x10',
  ' 5',
  '5 ',
  ' ',
  '%20',
  '',
  'NaN',
  'Infinity',
  '-Infinity',
  '1_000',
  '1,000',
  '+5',
  '.5',
  '5.',
  '1e-7',
  '0.0000001',
  '007',
  '-1',
  '1000000000001',
  '9'.repeat(400),
];

/** The same edges as JSON numbers (JSON holds no NaN or Infinity). */
export const NUMERIC_EXTREME_VALUES = [
  1e308,
  -1e308,
  1e20,
  -1e20,
  -0,
  2 ** 53 + 1,
  1e5,
  1e-7,
  -1,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_VALUE,
  1e12 + 1,
];

const isNumeric = (schema: Json) => schema['type'] === 'integer' || schema['type'] === 'number';

/** Junk of any shape: odd strings, numbers, unicode. */
export const junkString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...JUNK_STRINGS),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.integer().map(String),
  fc.double().map(String),
);

const junkJson: fc.Arbitrary<unknown> = fc.oneof(fc.jsonValue({ maxDepth: 3 }), junkString, fc.constant(null));

/** An arbitrary of values valid (or near-valid) for a JSON Schema (the subset zod 4 emits). */
export function valueOf(
  schema: Json,
  root: Json = schema,
  depth = 0,
  hints: Record<string, string[]> = {},
): fc.Arbitrary<unknown> {
  const ref = schema['$ref'];
  if (typeof ref === 'string' && ref.startsWith('#/')) {
    const target = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((node, key) => (node as Json | undefined)?.[key], root) as Json | undefined;
    return target && depth < 6 ? valueOf(target, root, depth + 1, hints) : junkJson;
  }
  if ('const' in schema) return fc.constant(schema['const']);
  if (Array.isArray(schema['enum'])) return fc.constantFrom(...(schema['enum'] as unknown[]));
  const choices = (schema['anyOf'] ?? schema['oneOf']) as Json[] | undefined;
  if (Array.isArray(choices) && choices.length > 0)
    return fc.oneof(...choices.map((c) => valueOf(c, root, depth + 1, hints)));
  const type = schema['type'];
  if (Array.isArray(type)) return fc.oneof(...type.map((t) => valueOf({ ...schema, type: t }, root, depth + 1, hints)));
  switch (type) {
    case 'string':
      return stringOf(schema);
    case 'integer':
      return withExtremes(fc.integer({ min: num(schema['minimum'], -1e6), max: num(schema['maximum'], 1e7) }));
    case 'number':
      return withExtremes(
        fc.double({ min: num(schema['minimum'], -1e6), max: num(schema['maximum'], 1e7), noNaN: true }),
      );
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = (schema['items'] ?? {}) as Json;
      return fc.array(depth > 4 ? junkJson : valueOf(items, root, depth + 1, hints), {
        minLength: Math.min(num(schema['minItems'], 0), 5),
        maxLength: Math.min(num(schema['maxItems'], 5), 5),
      });
    }
    case 'object':
      return objectOf(schema, root, depth, hints);
    default:
      return depth > 4 ? fc.constant(null) : junkJson;
  }
}

function withExtremes(inRange: fc.Arbitrary<number>): fc.Arbitrary<number> {
  return fc.oneof(
    { weight: 4, arbitrary: inRange },
    { weight: 1, arbitrary: fc.constantFrom(...NUMERIC_EXTREME_VALUES) },
  );
}

function num(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? Math.max(-1e12, Math.min(1e12, v)) : fallback;
}

function stringOf(schema: Json): fc.Arbitrary<string> {
  const min = num(schema['minLength'], 0);
  const max = Math.min(num(schema['maxLength'], 40), Math.max(min, 40));
  const format = schema['format'];
  if (format === 'uri')
    return fc.constantFrom(
      'https://example.com/hook',
      'http://127.0.0.1:9/hook',
      'https://10.0.0.1/x',
      'ftp://x',
      'not a url',
    );
  if (format === 'date') return fc.constantFrom('2026-11-01', '2026-02-30', '1999-01-01', '2026-11-21');
  if (format === 'date-time')
    return fc.constantFrom(
      '2026-11-01T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2027-02-30T00:00:00Z',
      new Date().toISOString(),
    );
  if (format === 'email') return fc.constant('someone@example.com');
  if (typeof schema['pattern'] === 'string') {
    try {
      return fc
        .stringMatching(new RegExp(schema['pattern']))
        .filter((s) => s.length >= min && s.length <= Math.max(max, min));
    } catch {
      return fc.string({ minLength: min, maxLength: max });
    }
  }
  return fc.string({ minLength: min, maxLength: max });
}

function objectOf(schema: Json, root: Json, depth: number, hints: Record<string, string[]>): fc.Arbitrary<unknown> {
  const props = (schema['properties'] ?? {}) as Record<string, Json>;
  const required = new Set((schema['required'] ?? []) as string[]);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, s] of Object.entries(props)) {
    const own = depth > 4 ? junkJson : valueOf(s, root, depth + 1, hints);
    // Real handles and ids make bodies reach the service rules, not only validation.
    const good = hints[name] ?? [];
    model[name] =
      good.length > 0
        ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...good) }, { weight: 1, arbitrary: own })
        : own;
  }
  const requiredKeys = Object.keys(model).filter((k) => required.has(k));
  return fc.record(model, { requiredKeys });
}

/** A body: valid-from-schema, valid with one field broken, valid plus an unknown field, or plain junk. */
function bodyOf(
  schema: Json,
  hints: Record<string, string[]>,
): fc.Arbitrary<{ raw?: string; json?: unknown; contentType: string }> {
  const valid = valueOf(schema, schema, 0, hints);
  return fc.oneof(
    { weight: 4, arbitrary: valid.map((json) => ({ json, contentType: 'application/json' })) },
    {
      weight: 2,
      arbitrary: fc.tuple(valid, fc.string({ maxLength: 12 }), junkJson).map(([v, k, j]) => {
        const keys = v && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v) : [];
        const name = keys.length > 0 ? (keys[k.length % keys.length] ?? k) : k;
        return {
          json: v && typeof v === 'object' && !Array.isArray(v) ? { ...v, [name]: j } : j,
          contentType: 'application/json',
        };
      }),
    },
    {
      weight: 1,
      arbitrary: valid.map((v) => ({
        json: v && typeof v === 'object' ? { ...v, unexpected_field: 1 } : v,
        contentType: 'application/json',
      })),
    },
    { weight: 1, arbitrary: junkJson.map((json) => ({ json, contentType: 'application/json' })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('{', '{"a":', 'null', '[]', '\u0000', '{"handle":"@x"}x')
        .map((raw) => ({ raw, contentType: 'application/json' })),
    },
    { weight: 1, arbitrary: valid.map((v) => ({ raw: JSON.stringify(v) ?? 'x', contentType: 'text/plain' })) },
  );
}

function hinted(name: string, own: fc.Arbitrary<string>, known: Record<string, string[]>): fc.Arbitrary<string> {
  const good = known[name] ?? [];
  return good.length > 0 ? fc.oneof(fc.constantFrom(...good), own) : own;
}

interface Drawn {
  path: string;
  query: Array<[string, string]>;
  body: { raw?: string; json?: unknown; contentType: string } | null;
  auth: 'key' | 'none' | 'bogus';
  /** An Idempotency-Key header (operations that declare one): fixed, odd, or too long. */
  idempotencyKey: string | null;
  /** Carries an impossible date: any 2xx is a finding (it was shifted, not refused). */
  impossibleDate?: boolean;
}

function requestOf(op: FuzzOperation, known: Record<string, string[]>): fc.Arbitrary<Drawn> {
  const pathArbs = op.pathParams.map((p) => {
    const good = known[`${op.path}#${p.name}`] ?? known[p.name] ?? [];
    const fromSchema = valueOf(p.schema).map((v) => String(v));
    return good.length > 0
      ? fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom(...good) },
          { weight: 1, arbitrary: fromSchema },
          { weight: 1, arbitrary: junkString },
        )
      : fc.oneof(fromSchema, junkString);
  });
  const queryArb = fc.subarray(op.queryParams, { minLength: 0 }).chain((chosen) =>
    fc.tuple(
      ...chosen.map((p) =>
        fc
          .oneof(
            {
              weight: 3,
              arbitrary: hinted(
                p.name,
                valueOf(p.schema).map((v) => String(v)),
                known,
              ),
            },
            { weight: 1, arbitrary: junkString },
            ...(isNumeric(p.schema) ? [{ weight: 2, arbitrary: fc.constantFrom(...NUMERIC_EXTREME_TEXTS) }] : []),
          )
          .map((v): [string, string] => [p.name, v]),
      ),
    ),
  );
  const extras = fc.oneof(
    { weight: 6, arbitrary: fc.constant<Array<[string, string]>>([]) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom('unknown_param', 'limit', 'cursor', 'x'), junkString)
        .map((t): Array<[string, string]> => [t]),
    },
  );
  return fc.record({
    path: fc.tuple(...pathArbs).map((values) => {
      let path = op.path;
      op.pathParams.forEach((p, i) => {
        path = path.replace(`{${p.name}}`, encodeURIComponent(String(values[i])));
      });
      return path;
    }),
    query: fc.tuple(queryArb, extras).map(([a, b]) => [...a, ...b]),
    body: op.body ? fc.option(bodyOf(op.body, known), { freq: 8 }) : fc.constant(null),
    auth: op.public
      ? fc.constant<'none'>('none')
      : fc.constantFrom<Array<'key' | 'none' | 'bogus'>>('key', 'key', 'key', 'key', 'key', 'key', 'none', 'bogus'),
    idempotencyKey: op.idempotent
      ? fc.option(
          fc.oneof(
            fc.constantFrom('fuzz-key-1', 'fuzz-key-2', '', 'k'.repeat(300), ' '),
            fc.string({ unit: 'grapheme-ascii', maxLength: 40 }),
          ),
          { freq: 2 },
        )
      : fc.constant(null),
  });
}

/** Sends one drawn request; answers its status and a rule violation, if any. */
async function send(
  options: FuzzOptions,
  op: FuzzOperation,
  d: Drawn,
): Promise<{ status: number; violation: string | null; request: string }> {
  const qs = d.query.length > 0 ? `?${new URLSearchParams(d.query).toString()}` : '';
  const headers: Record<string, string> = {};
  if (d.auth === 'key') headers['authorization'] = `Bearer ${options.key}`;
  if (d.auth === 'bogus') headers['authorization'] = 'Bearer cds_not_a_real_key_0000000000000000000000';
  if (d.idempotencyKey !== null) headers['idempotency-key'] = d.idempotencyKey;
  let body: string | undefined;
  if (d.body) {
    headers['content-type'] = d.body.contentType;
    body = d.body.raw ?? JSON.stringify(d.body.json) ?? 'null';
  }
  const request =
    `${op.method} ${d.path}${qs}${body !== undefined ? ` body=${body.slice(0, 300)}` : ''} auth=${d.auth}` +
    `${d.idempotencyKey !== null ? ` idempotency-key=${JSON.stringify(d.idempotencyKey.slice(0, 40))}` : ''}`;
  const res = await fetch(options.baseUrl + d.path + qs, { method: op.method, headers, body, redirect: 'manual' });
  const text = await res.text();
  if (res.status >= 500) return { status: res.status, violation: `5xx: ${text.slice(0, 300)}`, request };
  if (d.impossibleDate && res.status < 400)
    return { status: res.status, violation: `an impossible date was accepted (${res.status})`, request };
  if (res.status >= 400 && text.length > MAX_PROBLEM_BYTES) {
    return { status: res.status, violation: `a ${text.length}-byte problem body (over ${MAX_PROBLEM_BYTES})`, request };
  }
  if (res.status >= 400) {
    const type = res.headers.get('content-type') ?? '';
    if (!type.startsWith('application/problem+json'))
      return { status: res.status, violation: `4xx with content-type ${type}`, request };
    try {
      const p = JSON.parse(text) as { status?: unknown; code?: unknown; title?: unknown };
      if (p.status !== res.status || typeof p.code !== 'string' || typeof p.title !== 'string') {
        return { status: res.status, violation: `problem body mismatch: ${text.slice(0, 200)}`, request };
      }
    } catch {
      return { status: res.status, violation: `4xx body is not JSON: ${text.slice(0, 200)}`, request };
    }
  }
  return { status: res.status, violation: null, request };
}

/** Values every path parameter is tried with once, whatever the random runs draw (object keys, traversal, huge). */
const EDGE_VALUES = ['__proto__', 'constructor', 'hasOwnProperty', '..', '%', 'a'.repeat(3000), ' '];

/**
 * Deterministic requests: each path parameter set to each edge value (the others
 * known-good), each numeric query parameter set to each numeric extreme, and an
 * unknown `__proto__` parameter.
 */
function edgeRequests(op: FuzzOperation, known: Record<string, string[]>): Drawn[] {
  const good = (name: string) => known[`${op.path}#${name}`]?.[0] ?? known[name]?.[0] ?? 'x';
  const build = (override: Record<string, string>): string =>
    op.pathParams.reduce(
      (path, p) => path.replace(`{${p.name}}`, encodeURIComponent(override[p.name] ?? good(p.name))),
      op.path,
    );
  const base = { body: null, auth: (op.public ? 'none' : 'key') as Drawn['auth'], idempotencyKey: null };
  const out: Drawn[] = op.pathParams.flatMap((p) =>
    EDGE_VALUES.map((v) => ({ ...base, path: build({ [p.name]: v }), query: [] })),
  );
  for (const p of op.queryParams.filter((q) => isNumeric(q.schema))) {
    out.push(
      ...NUMERIC_EXTREME_TEXTS.map((v) => ({
        ...base,
        path: build({}),
        query: [[p.name, v]] as Array<[string, string]>,
      })),
    );
  }
  out.push({ ...base, path: build({}), query: [['__proto__', '1']] });
  for (const p of op.queryParams.filter((q) => DATE_PARAM.test(q.name))) {
    out.push(
      ...IMPOSSIBLE_DATES.map((v) => ({
        ...base,
        path: build({}),
        query: [[p.name, v]] as Array<[string, string]>,
        impossibleDate: true,
      })),
    );
  }
  if (op.body) {
    const idempotencyKey = op.idempotent ? 'fuzz-deep-1' : null;
    // a body nested 5,000 deep (recursive code must not walk it) and one with 3,000 unknown members (the problem stays bounded)
    out.push({
      ...base,
      path: build({}),
      query: [],
      idempotencyKey,
      body: { raw: `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`, contentType: 'application/json' },
    });
    out.push({
      ...base,
      path: build({}),
      query: [],
      idempotencyKey,
      body: {
        json: Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`unknown_${i}`, i])),
        contentType: 'application/json',
      },
    });
  }
  return out;
}

/** Query parameters that take a date or time, and values no calendar has. */
const DATE_PARAM = /^(from|to|since|until|date)$|_(at|on|date)$/;
const IMPOSSIBLE_DATES = ['2026-02-30', '2026-11-31', '2026-02-30T10:00:00Z', '2026-11-01T24:00:00Z'];
/** A problem body larger than this is a finding: errors and detail are capped. */
const MAX_PROBLEM_BYTES = 64 * 1024;

/** Fuzzes every operation of the document at `baseUrl`; never throws on a finding, reports it. */
export async function fuzzApi(doc: Json, options: FuzzOptions): Promise<FuzzReport> {
  const ops = operationsOf(doc).filter((op) => !(options.skip ?? []).includes(op.operationId));
  const report: FuzzReport = { operations: ops.length, requests: 0, statuses: {}, findings: [] };
  // Safe methods first so ids from the known values stay valid as long as possible; deletes last.
  const order = (m: string) => ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'].indexOf(m);
  ops.sort((a, b) => order(a.method) - order(b.method) || a.path.localeCompare(b.path));
  for (const op of ops) {
    const seenViolations = new Set<string>();
    const note = (r: { status: number; violation: string | null; request: string }) => {
      report.requests++;
      const bucket = `${Math.floor(r.status / 100)}xx`;
      report.statuses[bucket] = (report.statuses[bucket] ?? 0) + 1;
      if (r.violation && !seenViolations.has(r.violation.slice(0, 60))) {
        seenViolations.add(r.violation.slice(0, 60));
        report.findings.push({
          operation: `${op.method} ${op.path}`,
          status: r.status,
          request: r.request,
          problem: r.violation,
        });
      }
    };
    for (const d of edgeRequests(op, options.knownValues ?? {})) note(await send(options, op, d));
    await fc.assert(
      fc.asyncProperty(requestOf(op, options.knownValues ?? {}), async (d) => {
        note(await send(options, op, d));
        return true;
      }),
      { numRuns: options.runsPerOperation, seed: options.seed, endOnFailure: true },
    );
    options.log?.(
      `${op.method.padEnd(6)} ${op.path}: ${seenViolations.size === 0 ? 'ok' : `${seenViolations.size} finding(s)`}`,
    );
  }
  return report;
}
