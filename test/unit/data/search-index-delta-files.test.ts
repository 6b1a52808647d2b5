import fc from 'fast-check';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dataVersion,
  type CreatorSearchFilters,
  type CreatorSort,
} from '../../../data/creators/creator-search.queries.js';
import { SORT_KEYS } from '../../../data/creators/creator-taxonomy.js';
import { searchContext } from '../../../data/creators/search-context.js';
import {
  deltaNameOf,
  indexDirOf,
  openIndexFiles,
  stemOf,
  writeIndexFiles,
} from '../../../data/creators/search-index/index-files.js';
import { SearchIndexHolder } from '../../../data/creators/search-index/search-index.holder.js';
import type { SearchIndex } from '../../../data/creators/search-index/search-index.js';
import { loadSearchIndex } from '../../../data/creators/search-index/search-index.loader.js';
import { SnapshotIndexWriter } from '../../../data/snapshots/snapshot-index.js';
import { createTestStore, setContentLists, type TestStore } from '../../helpers/store.js';

// Delta segments (docs/search.md, "Delta segments"): a small change is written as a delta file over the base's
// index files, and an index read back as base + delta answers as a build of the changed data does.

let t: TestStore;
let dir: string;
let baseVersion: string;
let changedVersion: string;
/** A build of the changed data: what base + delta must answer. */
let fresh: SearchIndex;
let vocabulary: { niches: string[]; countries: string[]; platforms: string[]; words: string[]; hashtags: string[] };

const NOW = Date.parse('2026-11-21T12:00:00Z');

/** A holder over the test store that records what it was told. */
function holder(): { holder: SearchIndexHolder; told: string[] } {
  const told: string[] = [];
  return {
    holder: new SearchIndexHolder(t.store, {
      onBuilt: (o) => told.push(`${o.kind} ${o.ok}`),
      minRebuildIntervalMs: 0,
      prepareLookalikes: false,
    }),
    told,
  };
}

/** The changes of the delta test in search-index.test.ts, fewer: changed, new and deleted creators, audiences, lists. */
async function change(): Promise<void> {
  await t.store.run(`UPDATE creators SET followers = followers * 2, engagement_rate = NULL, search_text = search_text || ' deltaword'
    WHERE creator_id % 13 = 1`);
  await t.store.run(
    `UPDATE creators SET niche = 'astrology', country = 'IS', verified = NOT verified WHERE creator_id % 19 = 2`,
  );
  await t.store.run(`UPDATE audience SET pct = pct + 7 WHERE dimension = 'country' AND creator_id % 17 = 3`);
  await setContentLists(t.store, 'creator_id % 31 = 6', { hashtags: "list_append(hashtags, 'deltatag')" });
  await t.store.run('DELETE FROM audience WHERE creator_id % 29 = 5');
  await t.store.run('DELETE FROM creators WHERE creator_id % 29 = 5');
  await t.store.run(`INSERT INTO creators (creator_id, platform, handle, niche, country, followers, engagement_rate, verified, updated_at, search_text)
    SELECT 950000 + i, 'tiktok', 'delta' || i, 'astrology', 'IS', 500 * i, i % 7, i % 3 = 0, now()::TIMESTAMP, 'delta' || i || ' deltaword'
    FROM range(1, 20) t(i)`);
}

const filtersArb = (): fc.Arbitrary<{ filters: CreatorSearchFilters; sort: CreatorSort }> =>
  fc.record({
    filters: fc
      .record(
        {
          niche: fc.subarray(vocabulary.niches, { minLength: 1, maxLength: 2 }),
          country: fc.constantFrom(...vocabulary.countries),
          platform: fc.subarray(vocabulary.platforms, { minLength: 1, maxLength: 1 }),
          followers_min: fc.integer({ min: 0, max: 200_000 }),
          verified: fc.boolean(),
          q: fc.constantFrom(['deltaword'], ...vocabulary.words.map((w) => [w])),
          hashtags: fc.constantFrom(['deltatag'], ...vocabulary.hashtags.map((h) => [h])),
          audience_country: fc.constantFrom('US', ...vocabulary.countries.slice(0, 3)),
        },
        { requiredKeys: [] },
      )
      .map((f) => f as CreatorSearchFilters),
    sort: fc.record({ key: fc.constantFrom(...SORT_KEYS), descending: fc.boolean() }),
  });

/** A search's total, page and items, as `index` answers it. */
function answer(index: SearchIndex, filters: CreatorSearchFilters, sort: CreatorSort): unknown {
  const { total, rows } = index.search(filters, sort, null, 12, searchContext(NOW));
  // the rows' base positions are the index's own (a delta's base differs from a fresh build's): its items stand for them
  return {
    total,
    rows: rows.map((r) => [r.creator_id, r.sort_value]),
    items: rows.map((r) => index.item(r.creator_id, r.position)),
  };
}

function expectSameAsFresh(index: SearchIndex, runs: number): void {
  expect(index.version).toBe(changedVersion);
  fc.assert(
    fc.property(filtersArb(), ({ filters, sort }) => {
      expect(answer(index, filters, sort), JSON.stringify({ filters, sort })).toEqual(answer(fresh, filters, sort));
    }),
    { numRuns: runs, seed: 29 },
  );
}

/** Runs `fn`, then puts the index folder back as it was (a rebuild writes its files and prunes the others). */
async function preserving(fn: () => Promise<void>): Promise<void> {
  const saved = readdirSync(dir).map((n) => [n, readFileSync(join(dir, n))] as const);
  try {
    await fn();
  } finally {
    for (const n of readdirSync(dir)) rmSync(join(dir, n));
    for (const [n, bytes] of saved) writeFileSync(join(dir, n), bytes);
  }
}

function deltaPath(): string {
  return join(dir, deltaNameOf(changedVersion));
}

beforeAll(async () => {
  t = await createTestStore({ creators: 300 });
  dir = indexDirOf(t.store.path)!;
  const values = async (sql: string): Promise<string[]> => (await t.store.all<{ v: string }>(sql)).map((r) => r.v);
  vocabulary = {
    niches: await values('SELECT DISTINCT niche AS v FROM creators ORDER BY v'),
    countries: await values('SELECT DISTINCT country AS v FROM creators WHERE country IS NOT NULL ORDER BY v'),
    platforms: await values('SELECT DISTINCT platform AS v FROM creators ORDER BY v'),
    words: await values(
      `SELECT DISTINCT v FROM (SELECT split_part(search_text, ' ', 1) AS v FROM creators) WHERE length(v) > 2 ORDER BY v LIMIT 8`,
    ),
    hashtags: await values(
      'SELECT DISTINCT v FROM (SELECT unnest(hashtags) AS v FROM creator_content) ORDER BY v LIMIT 8',
    ),
  };
  // the embedded process: its first index built and written, then a small load, then its delta written
  const first = holder();
  await first.holder.build();
  baseVersion = await dataVersion(t.store);
  await change();
  changedVersion = await dataVersion(t.store);
  await first.holder.refresh(changedVersion);
  expect(first.told).toEqual(['build true', 'write true', 'delta true', 'write-delta true']);
  fresh = await loadSearchIndex(t.store, undefined, { lookalikes: false });
}, 120_000);

afterAll(async () => {
  await t.cleanup();
});

describe('delta segments over the index files', () => {
  it('a small load writes a small delta file naming the base, beside the base files (no new index)', () => {
    const names = readdirSync(dir);
    expect(names).toContain(`${stemOf(baseVersion)}.bin`);
    expect(names).not.toContain(`${stemOf(changedVersion)}.json`);
    expect(names).toContain(deltaNameOf(changedVersion));
    const header = JSON.parse(readFileSync(deltaPath(), 'utf8').split('\n')[0]!);
    expect(header).toMatchObject({ data_version: changedVersion, base: { data_version: baseVersion } });
    expect(header.changed).toBeGreaterThan(30);
  });

  it('read back as base + delta, answers every search as a build of the changed data', async () => {
    const opened = await openIndexFiles(dir, changedVersion);
    expect(opened.index).not.toBeNull();
    expect(opened.index && 'delta' in opened ? opened.delta?.base.data_version : null).toBe(baseVersion);
    expectSameAsFresh(opened.index!, 150);
  });

  it('the embedded process at start opens base + delta: no build, no delta computed', async () => {
    const { holder: h, told } = holder();
    await h.refresh(changedVersion);
    expect(told).toEqual(['open true']);
    expectSameAsFresh(h.current(changedVersion)!, 40);
  });

  it('a damaged delta is refused with the reason, and the holder rebuilds: never a wrong answer', async () => {
    await preserving(async () => {
      const good = readFileSync(deltaPath());
      const damaged = Buffer.from(good);
      const at = damaged.length - 20;
      damaged[at] = damaged[at]! ^ 0x01;
      writeFileSync(deltaPath(), damaged);
      const refused = await openIndexFiles(dir, changedVersion);
      expect(refused.index).toBeNull();
      expect(refused.index === null && refused.refused).toMatch(/body fails its checksum/);
      const { holder: h, told } = holder();
      await h.refresh(changedVersion);
      expect(told.slice(0, 2)).toEqual(['open false', 'build true']);
      expectSameAsFresh(h.current(changedVersion)!, 30);
    });
  });

  it('a delta naming other base files, or another data version, is refused', async () => {
    await preserving(async () => {
      const text = readFileSync(deltaPath(), 'utf8');
      const end = text.indexOf('\n');
      const edited = (edit: (header: { base: { creators: number }; data_version: string }) => void): void => {
        const header = JSON.parse(text.slice(0, end));
        edit(header);
        writeFileSync(deltaPath(), `${JSON.stringify(header)}\n${text.slice(end + 1)}`);
      };
      // not the base this process holds: read from the files, whose identity differs
      edited((h) => {
        h.base.creators += 1;
      });
      const mismatched = await openIndexFiles(dir, changedVersion);
      expect(mismatched.index === null && mismatched.refused).toMatch(/other base files/);
      edited((h) => {
        h.data_version = baseVersion;
      });
      const other = await openIndexFiles(dir, changedVersion);
      expect(other.index === null && other.refused).toMatch(/another data version/);
    });
  });

  it('the snapshot writer publishes a delta for a small change, and the files for the changed data open as base + delta', async () => {
    const snapshots = join(t.dir, 'snapshots');
    const file = join(snapshots, 'snap.duckdb');
    await writeIndexFiles(join(snapshots, 'search-index'), fresh);
    await t.store.run(
      `UPDATE creators SET followers = followers + 3, updated_at = now()::TIMESTAMP WHERE creator_id % 37 = 0`,
    );
    await t.store.run(`CHECKPOINT`);
    const version = await dataVersion(t.store);
    const { copyFileSync, mkdirSync } = await import('node:fs');
    mkdirSync(snapshots, { recursive: true });
    copyFileSync(t.store.path, file);
    const writer = new SnapshotIndexWriter({ minCreators: 1 });
    const outcome = await writer.write(file, version);
    expect(outcome).toMatchObject({ kind: 'delta' });
    expect(outcome.changed).toBeGreaterThan(0);
    const opened = await openIndexFiles(join(snapshots, 'search-index'), version, { orNewest: false });
    expect(opened.index?.version).toBe(version);
    const rebuilt = await loadSearchIndex(t.store, undefined, { lookalikes: false });
    const sort: CreatorSort = { key: 'followers', descending: true };
    for (const filters of [{}, { followers_min: 50_000 }, { niche: [vocabulary.niches[0]!] }] as CreatorSearchFilters[])
      expect(answer(opened.index!, filters, sort)).toEqual(answer(rebuilt, filters, sort));
  });
});
