import { dereference } from '@readme/openapi-parser';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type Json = Record<string, unknown>;

interface MediaObject {
  schema?: Json;
}
interface ResponseObject {
  headers?: Record<string, Json>;
  content?: Record<string, MediaObject>;
}
interface Operation {
  operationId?: string;
  responses?: Record<string, ResponseObject>;
}

/** One path template of the document, as a pattern, with its operations by method. */
interface PathEntry {
  template: string;
  pattern: RegExp;
  params: number;
  operations: Record<string, Operation>;
}

// ajv-formats ships CommonJS with a default export that ESM sees one level down
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;

/**
 * Checks responses against the app's own `/v1/openapi.json`, with validators
 * that share no code with the document's generator (ajv for the JSON Schema
 * 2020-12 bodies, `@readme/openapi-parser` to dereference): status documented
 * for the operation, content type documented, body valid, documented headers
 * present. A mismatch is the document (or the server) being wrong, so the
 * caller fails the test with the message returned.
 */
export class OpenApiResponseValidator {
  private readonly ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  private readonly compiled = new Map<Json, ValidateFunction>();

  private constructor(private readonly paths: PathEntry[]) {}

  /** Loads and dereferences the document an app serves at `${baseUrl}/v1/openapi.json`. */
  static async load(baseUrl: string): Promise<OpenApiResponseValidator> {
    const res = await fetch(`${baseUrl}/v1/openapi.json`);
    if (!res.ok) throw new Error(`GET /v1/openapi.json answered ${res.status}`);
    const doc = (await dereference((await res.json()) as never)) as unknown as {
      paths: Record<string, Record<string, Operation>>;
    };
    return new OpenApiResponseValidator(pathEntries(doc.paths));
  }

  /** Returns what is wrong with `res` as the answer to `method url`, or null when the document describes it. */
  async check(method: string, url: string, res: Response): Promise<string | null> {
    const pathname = new URL(url).pathname;
    const verb = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    const entry = this.paths.find((p) => p.pattern.test(pathname));
    const operation = entry?.operations[verb];
    if (!entry || !operation) return this.checkUnrouted(method, pathname, res);
    const label = `${operation.operationId ?? `${verb} ${entry.template}`} (${method.toUpperCase()} ${entry.template}) ${res.status}`;
    const response =
      operation.responses?.[String(res.status)] ??
      operation.responses?.[`${String(res.status)[0]}XX`] ??
      operation.responses?.['default'];
    if (!response) return `${label}: status ${res.status} is not documented for this operation`;
    const problem =
      missingHeaders(response, res) ?? (await this.checkBody(response, res, method.toLowerCase() === 'head'));
    return problem ? `${label}: ${problem}` : null;
  }

  /** No operation at that method and path: only the routing fallback's 404/405 problem is acceptable. */
  private async checkUnrouted(method: string, pathname: string, res: Response): Promise<string | null> {
    const label = `${method.toUpperCase()} ${pathname} (no documented operation) ${res.status}`;
    if (res.status !== 404 && res.status !== 405)
      return `${label}: only 404 or 405 may answer an undocumented method or path`;
    const fallback: ResponseObject = { content: { 'application/problem+json': { schema: this.problemSchema() } } };
    const problem = await this.checkBody(fallback, res, method.toLowerCase() === 'head');
    return problem ? `${label}: ${problem}` : null;
  }

  /** The dereferenced Problem schema, taken from any operation's error response. */
  private problemSchema(): Json | undefined {
    for (const entry of this.paths) {
      for (const op of Object.values(entry.operations)) {
        const schema = op.responses?.['500']?.content?.['application/problem+json']?.schema;
        if (schema) return schema;
      }
    }
    return undefined;
  }

  private async checkBody(response: ResponseObject, res: Response, head: boolean): Promise<string | null> {
    const header = res.headers.get('content-type');
    const text = head ? '' : await res.clone().text();
    if (!response.content) {
      return text.length > 0 || header
        ? `a body (${header ?? 'no content type'}) where the document describes none`
        : null;
    }
    if (!header) return `no Content-Type; documented: ${Object.keys(response.content).join(', ')}`;
    const essence = header.split(';')[0]!.trim().toLowerCase();
    const media = response.content[essence];
    if (!media)
      return `content type ${essence} is not documented (documented: ${Object.keys(response.content).join(', ')})`;
    if (head || !media.schema || !isJson(essence)) return null;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return `the ${essence} body is not JSON: ${text.slice(0, 200)}`;
    }
    const validate = this.validatorFor(media.schema);
    if (validate(body)) return null;
    return `the body does not match the schema: ${schemaErrors(validate)}; body: ${JSON.stringify(body).slice(0, 400)}`;
  }

  private validatorFor(schema: Json): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.compiled.set(schema, validate);
    }
    return validate;
  }
}

/** Literal templates before parameterised ones, so `/v1/creators/search` wins over `/v1/creators/{handle}`. */
function pathEntries(paths: Record<string, Record<string, Operation>>): PathEntry[] {
  return Object.entries(paths)
    .map(([template, operations]) => {
      const params = (template.match(/\{[^}]+\}/g) ?? []).length;
      const source = template
        .split(/\{[^}]+\}/)
        .map(escapeRegExp)
        .join('[^/]+');
      return { template, pattern: new RegExp(`^${source}$`), params, operations };
    })
    .sort((a, b) => a.params - b.params);
}

function missingHeaders(response: ResponseObject, res: Response): string | null {
  const missing = Object.keys(response.headers ?? {}).filter((name) => !res.headers.has(name));
  return missing.length > 0 ? `documented headers missing: ${missing.join(', ')}` : null;
}

/** ajv's errors with the offending member named (its own text leaves additional properties anonymous). */
function schemaErrors(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .map((e) => {
      const extra = (e.params as { additionalProperty?: string }).additionalProperty;
      return `${e.instancePath || '/'} ${e.message ?? e.keyword}${extra ? ` (${extra})` : ''}`;
    })
    .join('; ');
}

function isJson(essence: string): boolean {
  return essence === 'application/json' || essence.endsWith('+json');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
