import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../../data/store.js';
import { trimmedTextSql } from '../../../pipelines/engine/validate.js';

let store: Store;
beforeAll(async () => {
  store = await Store.open(':memory:');
});
afterAll(async () => {
  await store.close();
});

describe('text values lose their surrounding blanks as trim removes them', () => {
  it('the prose form (blanks looked for first) gives what trim gives, for every code point at either end', async () => {
    // every code point but the surrogates, at the start, at the end, alone, and inside a word
    const row = await store.one<{ differ: number; checked: number }>(
      `WITH v AS (SELECT x FROM (SELECT chr(i::INTEGER) AS ch FROM range(1, 1114112) t(i) WHERE i NOT BETWEEN 55296 AND 57343),
          LATERAL (SELECT unnest([ch || 'word', 'word' || ch, ch, 'wo' || ch || 'rd', ch || ch || 'word' || ch]) AS x))
      SELECT count(*) FILTER (WHERE (${trimmedTextSql('x', true)}) IS DISTINCT FROM nullif(trim(x), '')) AS differ, count(*) AS checked FROM v`,
    );
    expect(row?.checked).toBeGreaterThan(5_000_000);
    expect(row?.differ).toBe(0);
  });

  it('both forms make an empty or blank value missing and keep inner blanks', async () => {
    const cases = ['', '   ', '\u00a0\u3000', ' a b ', '\u2003caption with #tags\u00a0', 'plain', '\tkept\t'];
    for (const prose of [true, false]) {
      const rows = await store.all<{ x: string; out: string | null }>(
        `SELECT x, ${trimmedTextSql('x', prose)} AS out FROM (SELECT unnest(?::VARCHAR[]) AS x)`,
        [cases],
      );
      expect(rows.map((r) => r.out)).toEqual([null, null, null, 'a b', 'caption with #tags', 'plain', '\tkept\t']);
    }
  });
});
