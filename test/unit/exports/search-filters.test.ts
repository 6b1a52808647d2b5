import { describe, expect, it } from 'vitest';
import { parseSearchFilters, searchSql } from '../../../connectors/exports/search-filters.js';
import { ValidationError } from '../../../data/errors.js';

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
    expect(fieldsOf(() => parseSearchFilters({ niche: 'knitting', followers_min: 'many' }))).toEqual(['filters.niche', 'filters.followers_min']);
  });

  it('contradicting bounds are a body error on the filter', () => {
    expect(fieldsOf(() => parseSearchFilters({ followers_min: '10', followers_max: '5' }))).toEqual(['filters.followers_min']);
    expect(fieldsOf(() => parseSearchFilters({ audience_country_min_pct: '10' }))).toEqual(['filters.audience_country_min_pct']);
  });

  it('numbers take the search parameters\' format and bounds: plain decimal only, finite, within range; -0 is 0', () => {
    for (const growth of ['1e20', '100000000000000000000', '1000000.5', '-101', ' 5', '0x10', '', 'Infinity']) {
      expect(fieldsOf(() => parseSearchFilters({ growth_30d_min: growth })), growth).toEqual(['filters.growth_30d_min']);
    }
    expect(fieldsOf(() => parseSearchFilters({ followers_min: '1000000000001' }))).toEqual(['filters.followers_min']);
    expect(fieldsOf(() => parseSearchFilters({ followers_min: '1.5' }))).toEqual(['filters.followers_min']);
    expect(parseSearchFilters({ growth_30d_min: '-0', followers_min: '-0', engagement_min: '2.5' }).filters)
      .toEqual({ growth_30d_min: 0, followers_min: 0, engagement_min: 2.5 });
  });

  it('values are bound, never spliced into the SQL, and the order has a unique tiebreak', () => {
    const sql = searchSql(parseSearchFilters({ niche: 'beauty,food', country: 'us', q: "o'brien", sort: 'engagement_rate' }));
    expect(sql.where).not.toContain('beauty');
    expect(sql.where).not.toContain("o'brien");
    expect(sql.params).toEqual(expect.arrayContaining(['beauty', 'food', 'US', "o'brien"]));
    expect(sql.orderBy).toMatch(/ASC, c\.creator_id$/);
    expect(searchSql(parseSearchFilters({})).orderBy).toBe('followers DESC, c.creator_id');
  });
});
