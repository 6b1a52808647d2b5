import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DestinationConfigError, loadDestinations } from '../../../connectors/warehouse/destinations-file.js';
import { selectTables } from '../../../connectors/warehouse/runner.js';
import { batchQuery, partitionDateSql, sourceRelation, SYNC_TABLES } from '../../../connectors/warehouse/tables.js';

const cols = (...names: string[]) => names.map((name) => ({ name, type: 'VARCHAR' }));

describe('batch queries', () => {
  it("a timestamp cursor takes rows strictly past the last watermark up to this run's, bound as parameters", () => {
    const q = batchQuery(
      SYNC_TABLES.creators,
      cols('creator_id', 'updated_at'),
      '2026-01-01 00:00:00',
      '2026-02-01 00:00:00',
    );
    expect(q.sql).toBe(
      `SELECT "creator_id", "updated_at" FROM ${sourceRelation(SYNC_TABLES.creators)} WHERE "updated_at" > CAST(? AS TIMESTAMP) AND "updated_at" <= CAST(? AS TIMESTAMP)`,
    );
    expect(sourceRelation(SYNC_TABLES.creators)).toMatch(
      /^\(SELECT c\.\*, .* FROM creators c LEFT JOIN creator_content /,
    );
    expect(q.params).toEqual(['2026-01-01 00:00:00', '2026-02-01 00:00:00']);
  });

  it('a DATE cursor re-sends the last day, and a table without a store key keeps the newest row per key', () => {
    const q = batchQuery(SYNC_TABLES.follower_history, cols('creator_id', 'date'), '2026-01-01', '2026-01-05');
    expect(q.sql).toContain('"date" >= CAST(? AS DATE)');
    expect(q.sql).toContain('QUALIFY row_number() OVER (PARTITION BY "creator_id", "date" ORDER BY "date" DESC) = 1');
  });

  it('the first run has no lower bound; a table without cursor is sent whole, partitioned by the run day', () => {
    expect(batchQuery(SYNC_TABLES.campaigns, cols('campaign_id'), null, '2026-01-01 00:00:00').params).toEqual([
      '2026-01-01 00:00:00',
    ]);
    expect(batchQuery(SYNC_TABLES.campaign_creators, cols('campaign_id'), null, null).sql).toBe(
      'SELECT "campaign_id" FROM "campaign_creators"',
    );
    expect(partitionDateSql(SYNC_TABLES.campaign_creators, '2026-03-04')).toBe("'2026-03-04'");
    expect(() => partitionDateSql(SYNC_TABLES.campaign_creators, "x'; DROP")).toThrow();
  });
});

describe('the destinations file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cds-dest-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (content: unknown): string => {
    const path = join(dir, `d-${Math.random()}.json`);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };

  it("is read into validated configs with defaults, a relative folder taken from the file's folder", () => {
    const all = loadDestinations(
      file({
        wh: { type: 'postgres', url: 'postgres://u:p@h/db', tables: ['creators', 'campaigns'] },
        lake: { type: 'files', path: 'lake', schedule: '0 * * * *' },
      }),
    );
    expect(all.get('wh')).toMatchObject({ type: 'postgres', schema: 'cds', connect_timeout_ms: 10_000 });
    expect(all.get('lake')).toMatchObject({ type: 'files', path: join(dir, 'lake'), format: 'parquet' });
    const wh = all.get('wh');
    expect(wh && selectTables(wh, ['campaigns', 'posts'])).toEqual(['campaigns']);
    expect(loadDestinations(null).size).toBe(0);
  });

  it.each([
    [{ x: { type: 'mysql' } }, /x.type/],
    [{ x: { type: 'files', path: 'p', schedule: 'every day' } }, /not a cron expression/],
    [{ x: { type: 'postgres', url: 'http://h' } }, /postgres:\/\/ URL/],
    [{ x: { type: 'files', path: 'p', tables: ['users'] } }, /x.tables/],
    [{ x: { type: 'files', path: 'p', extra: 1 } }, /extra/],
    ['{not json', /not valid JSON/],
  ])('a bad file is refused naming the problem (%#)', (content, message) => {
    expect(() => loadDestinations(file(content))).toThrow(DestinationConfigError);
    expect(() => loadDestinations(file(content))).toThrow(message);
  });
});
