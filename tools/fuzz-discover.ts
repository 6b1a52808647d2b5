// Known-good values for the fuzzer: ids of resources it creates first, so path
// parameters reach real rows and not only the "not found" branch.
import fc from 'fast-check';
import { operationsOf, valueOf, type FuzzOptions } from './fuzz-openapi.js';

type Json = Record<string, unknown>;

/**
 * Creates a few resources through every POST that takes no path parameter (with
 * bodies drawn from its schema) and answers the ids it got back, as known values
 * for path parameters: `{path}#{name}` for every path under that collection, and
 * for parameters whose pattern the id matches.
 */
export async function discoverIds(
  doc: Json,
  options: Pick<FuzzOptions, 'baseUrl' | 'key' | 'knownValues' | 'seed'>,
  attempts = 12,
): Promise<Record<string, string[]>> {
  const known: Record<string, string[]> = { ...(options.knownValues ?? {}) };
  const ops = operationsOf(doc);
  const ids: Array<{ collection: string; id: string }> = [];
  for (const op of ops.filter((o) => o.method === 'POST' && o.pathParams.length === 0 && o.body)) {
    const samples = fc.sample(valueOf(op.body as Json, op.body as Json, 0, known), {
      numRuns: attempts,
      seed: options.seed ?? 1,
    });
    for (const json of samples) {
      const res = await fetch(options.baseUrl + op.path, {
        method: 'POST',
        body: JSON.stringify(json),
        headers: { authorization: `Bearer ${options.key}`, 'content-type': 'application/json' },
      });
      const body = (await res.json().catch(() => null)) as { id?: unknown } | null;
      if (res.ok && typeof body?.id === 'string') ids.push({ collection: op.path, id: body.id });
      if (ids.filter((x) => x.collection === op.path).length >= 2) break;
    }
  }
  for (const op of ops) {
    for (const p of op.pathParams) {
      const pattern = typeof p.schema['pattern'] === 'string' ? safeRegex(p.schema['pattern']) : null;
      const matching = ids
        .filter((x) => (pattern ? pattern.test(x.id) : op.path.startsWith(`${x.collection}/{${p.name}}`)))
        .map((x) => x.id);
      if (matching.length > 0)
        known[`${op.path}#${p.name}`] = [...new Set([...(known[`${op.path}#${p.name}`] ?? []), ...matching])];
    }
  }
  return known;
}

function safeRegex(pattern: string): RegExp | null {
  try {
    return new RegExp(pattern);
  } catch {
    return null;
  }
}
