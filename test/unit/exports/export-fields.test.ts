import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  availableFields,
  defaultFieldNames,
  projectField,
  resolveFields,
} from '../../../connectors/exports/export-fields.js';
import { ValidationError } from '../../../data/errors.js';
import { Store } from '../../../data/store.js';

describe('export fields', () => {
  it('unknown fields are one 400 naming every one of them', () => {
    try {
      resolveFields('search', ['handle', 'password', 'followers', 'api_key']);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).code).toBe('invalid_body');
      expect((error as ValidationError).message).toContain('password, api_key');
      expect((error as ValidationError).errors[0]?.field).toBe('fields');
    }
  });

  it('a field named twice is refused', () => {
    expect(() => resolveFields('search', ['handle', 'handle'])).toThrow(/more than once: handle/);
  });

  it('the defaults are flat creator columns plus top audience columns, all on the allow-list', () => {
    for (const kind of ['search', 'list', 'creators', 'campaign'] as const) {
      const allowed = new Set(availableFields(kind).map((f) => f.name));
      expect(defaultFieldNames(kind).every((n) => allowed.has(n))).toBe(true);
    }
    expect(defaultFieldNames('search')).toEqual(
      expect.arrayContaining(['handle', 'followers', 'audience_top_country_1', 'audience_top_country_pct_1']),
    );
    expect(defaultFieldNames('list')).toContain('added_at');
    expect(defaultFieldNames('campaign')).toEqual(expect.arrayContaining(['date', 'handle', 'impressions', 'spend']));
    expect(availableFields('campaign').some((f) => f.name === 'added_at')).toBe(false);
  });
});

describe('CSV formula neutralising, evaluated by DuckDB', () => {
  let store: Store;
  beforeAll(async () => {
    store = await Store.open(':memory:');
  });
  afterAll(async () => store.close());

  async function csvCell(name: 'display_name' | 'handle', value: string): Promise<string> {
    const field = resolveFields('search', [name])[0];
    if (!field) throw new Error('no field');
    const sql = projectField({ ...field, sql: '$1::VARCHAR' }, 'csv');
    return String((await store.one<Record<string, string>>(`SELECT ${sql}`, [value]))?.[name]);
  }

  it('text cells a spreadsheet would run get a leading apostrophe', async () => {
    for (const risky of ['=1+2', '+SUM(A1)', '-2+3', '@SUM(1)', '\t=1', '\r=1'])
      expect(await csvCell('display_name', risky)).toBe(`'${risky}`);
    for (const safe of ['Anna', '1+2', 'a=b', '']) expect(await csvCell('display_name', safe)).toBe(safe);
  });

  it('a plain @handle stays as it is, a handle that could be a formula does not', async () => {
    expect(await csvCell('handle', '@anna.b_1')).toBe('@anna.b_1');
    expect(await csvCell('handle', '@SUM(1)')).toBe("'@SUM(1)");
    expect(await csvCell('handle', '=HYPERLINK("x")')).toBe(`'=HYPERLINK("x")`);
  });

  it('timestamps are ISO 8601 UTC with Z in text formats', async () => {
    const field = resolveFields('search', ['updated_at'])[0];
    if (!field) throw new Error('no field');
    const sql = projectField({ ...field, sql: `TIMESTAMP '2026-11-21 10:11:12.345'` }, 'json');
    expect((await store.one<{ updated_at: string }>(`SELECT ${sql}`))?.updated_at).toBe('2026-11-21T10:11:12.345Z');
  });
});
