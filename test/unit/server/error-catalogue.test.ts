import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, ERROR_CODES } from '../../../server/http/error-catalogue.js';

/** The rows of the table in docs/errors.md: code, status, title. */
function documentedErrors(): Map<string, { status: number; title: string; when: string; fix: string }> {
  const text = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
  const rows = new Map<string, { status: number; title: string; when: string; fix: string }>();
  for (const line of text.split('\n')) {
    const m = /^\| `([a-z_]+)` \| (\d{3}) \| ([^|]+) \| ([^|]+) \| ([^|]+) \|$/.exec(line.trim());
    if (m) rows.set(m[1]!, { status: Number(m[2]), title: m[3]!.trim(), when: m[4]!.trim(), fix: m[5]!.trim() });
  }
  return rows;
}

describe('the error catalogue and docs/errors.md', () => {
  it('document exactly the codes of the catalogue, with the same status and title', () => {
    const docs = documentedErrors();
    expect([...docs.keys()].sort()).toEqual([...ERROR_CODES].sort());
    for (const code of ERROR_CODES) {
      expect(docs.get(code)?.status, code).toBe(ERROR_CATALOGUE[code].status);
      expect(docs.get(code)?.title, code).toBe(ERROR_CATALOGUE[code].title);
    }
  });

  it('say for every code when it happens and how to fix it', () => {
    for (const [code, row] of documentedErrors()) {
      expect(row.when.length, code).toBeGreaterThan(20);
      expect(row.fix.length, code).toBeGreaterThan(10);
    }
  });

  it('use the statuses of docs/errors.md, plus 410 gone for an expired export', () => {
    expect(Object.fromEntries(ERROR_CODES.map((c) => [c, ERROR_CATALOGUE[c].status]))).toEqual({
      invalid_parameter: 400,
      invalid_body: 400,
      unauthorized: 401,
      plan_required: 403,
      insufficient_scope: 403,
      not_found: 404,
      creator_not_found: 404,
      method_not_allowed: 405,
      ambiguous_handle: 409,
      conflict: 409,
      idempotency_key_reused: 422,
      follower_sample_missing: 422,
      payload_too_large: 413,
      unsupported_media_type: 415,
      limit_exceeded: 403,
      rate_limited: 429,
      internal: 500,
      unavailable: 503,
      gone: 410,
    });
  });
});
