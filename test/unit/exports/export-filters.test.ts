import { describe, expect, it } from 'vitest';
import { parseSearchFilters, searchContextFor, searchSql } from '../../../connectors/exports/export-filters.js';
import { ValidationError } from '../../../data/errors.js';
import { createTestStore } from '../../helpers/store.js';

function fieldsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ValidationError) return error.errors.map((e) => e.field ?? e.param ?? '');
    throw error;
  }
  return [];
}

describe('export search filters', () => {
  it('unknown and malformed filters are named as filters.<name>', () => {
    expect(fieldsOf(() => parseSearchFilters({ nich: 'beauty' }))).toEqual(['filters.nich']);
    expect(fieldsOf(() => parseSearchFilters({ niche: 'knitting', followers_min: 'many' }))).toEqual([
      'filters.niche',
      'filters.followers_min',
    ]);
  });

  it('contradicting bounds are a body error on the filter', () => {
    expect(fieldsOf(() => parseSearchFilters({ followers_min: '10', followers_max: '5' }))).toEqual([
      'filters.followers_min',
    ]);
    expect(fieldsOf(() => parseSearchFilters({ audience_country_min_pct: '10' }))).toEqual([
      'filters.audience_country_min_pct',
    ]);
  });

  it("numbers take the search parameters' format and bounds: plain decimal only, finite, within range; -0 is 0", () => {
    for (const growth of ['1e20', '100000000000000000000', '1000000.5', '-101', ' 5', '0x10', '', 'Infinity']) {
      expect(
        fieldsOf(() => parseSearchFilters({ growth_30d_min: growth })),
        growth,
      ).toEqual(['filters.growth_30d_min']);
    }
    expect(fieldsOf(() => parseSearchFilters({ followers_min: '1000000000001' }))).toEqual(['filters.followers_min']);
    expect(fieldsOf(() => parseSearchFilters({ followers_min: '1.5' }))).toEqual(['filters.followers_min']);
    expect(parseSearchFilters({ growth_30d_min: '-0', followers_min: '-0', engagement_min: '2.5' }).filters).toEqual({
      growth_30d_min: 0,
      followers_min: 0,
      engagement_min: 2.5,
    });
  });

  it('values are bound, never spliced into the SQL, and the order has a unique tiebreak', () => {
    const sql = searchSql(
      parseSearchFilters({ niche: 'beauty,food', country: 'us', q: "o'brien", sort: 'engagement_rate' }),
    );
    expect(sql.where).not.toContain('beauty');
    expect(sql.where).not.toContain("o'brien");
    expect(sql.params).toEqual(expect.arrayContaining(['beauty', 'food', 'US', "o'brien"]));
    expect(sql.orderBy).toMatch(/ASC, c\.creator_id$/);
    expect(searchSql(parseSearchFilters({})).orderBy).toBe('followers DESC, c.creator_id');
  });

  it("the discovery filters become bound SQL with the export's time and its excluded lists' members", async () => {
    const t = await createTestStore();
    try {
      const at = Date.parse('2026-11-21T00:00:00Z');
      await t.state.run(`INSERT INTO lists (list_id, account_id, name, created_at, updated_at)
        VALUES ('lst_mine', 'acct_a', 'mine', now()::TIMESTAMP, now()::TIMESTAMP), ('lst_theirs', 'acct_b', 'theirs', now()::TIMESTAMP, now()::TIMESTAMP)`);
      await t.state.run(
        `INSERT INTO list_members (list_id, creator_id, added_at) VALUES ('lst_mine', 7, now()::TIMESTAMP), ('lst_mine', 3, now()::TIMESTAMP)`,
      );
      const parsed = parseSearchFilters({
        hashtags: '#Vegan',
        brands: 'Nike',
        last_posted_days_max: '30',
        exclude_list: 'lst_mine',
      });
      const sql = searchSql(parsed, await searchContextFor(t.state, 'acct_a', parsed, at));
      expect(sql.params).toEqual(expect.arrayContaining(['vegan', '@nike', (at - 30 * 86_400_000) * 1000, [3, 7]]));
      const theirs = parseSearchFilters({ exclude_list: 'lst_theirs' });
      await expect(searchContextFor(t.state, 'acct_a', theirs, at)).rejects.toSatisfy(
        (e: unknown) => e instanceof ValidationError && e.errors.every((x) => x.field === 'filters.exclude_list'),
      );
      expect(() => searchSql(parsed)).toThrow(/exclude_list/);
    } finally {
      await t.cleanup();
    }
  });
});
