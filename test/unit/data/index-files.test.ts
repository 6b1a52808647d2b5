import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataVersion, type CreatorSearchFilters } from '../../../data/creators/creator-search.queries.js';
import { searchContext } from '../../../data/creators/search-context.js';
import {
  FORMAT_VERSION,
  indexDirOf,
  openIndexFiles,
  prefetchIndexFiles,
  takePrefetched,
  writeIndexFiles,
  type IndexManifest,
} from '../../../data/creators/search-index/index-files.js';
import { CreatorSearchService } from '../../../data/creators/creator-search.service.js';
import { lookalikeModel, prepareLookalikeModel } from '../../../data/creators/search-index/lookalike-model.js';
import { isMapped, mapsIndexFiles, setIndexFileMapping } from '../../../data/creators/search-index/mapped-file.js';
import { SearchIndexHolder } from '../../../data/creators/search-index/search-index.holder.js';
import type { SearchIndex } from '../../../data/creators/search-index/search-index.js';
import { loadSearchIndex, writeSearchIndexFiles } from '../../../data/creators/search-index/search-index.loader.js';
import { createTestStore, type TestStore } from '../../helpers/store.js';

let t: TestStore;
let built: SearchIndex;
let dir: string;

const NOW = Date.parse('2026-11-21T12:00:00Z');
const SEARCHES: CreatorSearchFilters[] = [
  {},
  { niche: ['fitness', 'food'] },
  { followers_min: 20_000, verified: false },
  { q: ['a'] },
  { country: 'US', engagement_min: 2 },
];

/** Every search's total and page (ids and sort values: the base positions are each index's own), as `index` answers them. */
function answers(index: SearchIndex): unknown[] {
  return SEARCHES.map((f) => {
    const { total, rows } = index.search(f, { key: 'followers', descending: true }, null, 15, searchContext(NOW));
    return { total, rows: rows.map((r) => [r.creator_id, r.sort_value]) };
  });
}

/** A holder over the test store that records what it was told. */
function holder(): { holder: SearchIndexHolder; told: Array<{ ok: boolean; kind: string; error?: unknown }> } {
  const told: Array<{ ok: boolean; kind: string; error?: unknown }> = [];
  return { holder: new SearchIndexHolder(t.store, { onBuilt: (o) => told.push(o), minRebuildIntervalMs: 0 }), told };
}

/** A holder refreshed over files it refuses: told the open failed, it builds from the store and writes files. */
async function refreshOverRefusedFiles(): Promise<ReturnType<typeof holder>> {
  const made = holder();
  await made.holder.refresh(await dataVersion(t.store));
  expect(made.told.map((o) => [o.kind, o.ok])).toEqual([
    ['open', false],
    ['build', true],
    ['write', true],
  ]);
  return made;
}

function manifestPath(): string {
  const name = readdirSync(dir).find((n) => n.endsWith('.json'))!;
  return join(dir, name);
}

beforeAll(async () => {
  t = await createTestStore({ creators: 400 });
  dir = indexDirOf(t.store.path)!;
  built = await loadSearchIndex(t.store);
}, 120_000);

afterAll(async () => {
  await t.cleanup();
});

describe('the search index as files', () => {
  it('opened from its files, answers every search exactly as the index it was written from', async () => {
    const manifest = await writeIndexFiles(dir, built);
    expect(manifest.data_version).toBe(await dataVersion(t.store));
    const opened = await openIndexFiles(dir, built.version);
    expect(opened.index).not.toBeNull();
    expect(answers(opened.index!)).toEqual(answers(built));
    expect(opened.index!.item(built.lookalikeView().data.ids[7]!)).toEqual(
      built.item(built.lookalikeView().data.ids[7]!),
    );
  });

  it('mapped by default, or read into memory with mapping off: the same answers, and a damaged file refused either way', async () => {
    // the mmap package is an optional dependency: this machine builds it, and an open here maps
    expect(mapsIndexFiles()).toBe(true);
    await writeIndexFiles(dir, built);
    const mapped = (await openIndexFiles(dir, built.version)).index!;
    expect(isMapped(mapped.lookalikeView().data.ids.buffer)).toBe(true);
    expect(answers(mapped)).toEqual(answers(built));
    setIndexFileMapping(false);
    try {
      const read = (await openIndexFiles(dir, built.version)).index!;
      expect(isMapped(read.lookalikeView().data.ids.buffer)).toBe(false);
      expect(answers(read)).toEqual(answers(built));
      expect(read.fileParts()).toEqual(mapped.fileParts());
      // a byte changed in the creators' ids (a section every search reads): both opens refuse it
      await writeIndexFiles(dir, built);
      const manifest = JSON.parse(readFileSync(manifestPath(), 'utf8')) as IndexManifest;
      const last = (manifest.skeleton as { data: { ids: { s: number } } }).data.ids.s;
      const [offset, length] = manifest.sections[last]!;
      const bin = join(dir, manifest.file);
      const bytes = readFileSync(bin);
      bytes[offset + length - 1]! ^= 0x08;
      writeFileSync(bin, bytes);
      const whenRead = await openIndexFiles(dir, built.version);
      expect(whenRead.index === null && whenRead.refused).toMatch(new RegExp(`section ${last} fails its checksum`));
      setIndexFileMapping(true);
      const whenMapped = await openIndexFiles(dir, built.version);
      expect(whenMapped.index === null && whenMapped.refused).toMatch(new RegExp(`section ${last} fails its checksum`));
    } finally {
      setIndexFileMapping(true);
      await writeIndexFiles(dir, built);
    }
  });

  it('written part by part from the store (no index in memory), the files hold what the built index writes', async () => {
    const whole = await writeIndexFiles(dir, built);
    const fromWhole = (await openIndexFiles(dir, built.version)).index!;
    const { manifest, ids } = await writeSearchIndexFiles(t.store, dir);
    expect(manifest.data_version).toBe(built.version);
    // the same sections, in another order (so other padding between them)
    const lengths = (m: IndexManifest): number[] => m.sections.map(([, length]) => length).sort((a, b) => a - b);
    expect(lengths(manifest)).toEqual(lengths(whole));
    expect(ids).toEqual(built.lookalikeView().data.ids);
    const opened = (await openIndexFiles(dir, built.version)).index!;
    expect(opened.fileParts()).toEqual(fromWhole.fileParts());
    // the writer builds the lookalike vectors from the parts it holds: the ones a whole index makes
    const vectors = (index: SearchIndex) => {
      const { content, audience } = lookalikeModel(index.lookalikeView().data);
      return [content.forward, content.invNorm, content.weight2, audience.forward, audience.countryHolders];
    };
    expect(vectors(opened)).toEqual(vectors(fromWhole));
    expect(answers(opened)).toEqual(answers(built));
  });

  it('a holder with the files beside its store opens them instead of building', async () => {
    await writeIndexFiles(dir, built);
    const { holder: h, told } = holder();
    await h.refresh(await dataVersion(t.store));
    expect(told.map((o) => [o.kind, o.ok])).toEqual([['open', true]]);
    expect(answers(h.current(await dataVersion(t.store))!)).toEqual(answers(built));
  });

  it('a damaged data file fails its checksum: refused, told, and the index built from the store gives the same answers', async () => {
    await writeIndexFiles(dir, built);
    const bin = join(dir, (JSON.parse(readFileSync(manifestPath(), 'utf8')) as IndexManifest).file);
    const bytes = readFileSync(bin);
    bytes[Math.floor(bytes.length / 2)]! ^= 0x40;
    writeFileSync(bin, bytes);
    const refused = await openIndexFiles(dir, built.version);
    expect(refused.index).toBeNull();
    expect(refused.index === null && refused.refused).toMatch(/checksum/);
    const { holder: h, told } = await refreshOverRefusedFiles();
    expect(String(told[0]!.error)).toMatch(/refused.*checksum/);
    expect(answers(h.current(await dataVersion(t.store))!)).toEqual(answers(built));
    // the build wrote good files again
    expect((await openIndexFiles(dir, built.version)).index).not.toBeNull();
  }, 60_000);

  it('files naming another data version than their name, or a changed skeleton, are refused', async () => {
    await writeIndexFiles(dir, built);
    const path = manifestPath();
    const good = readFileSync(path, 'utf8');
    const manifest = JSON.parse(good) as IndexManifest;
    writeFileSync(path, JSON.stringify({ ...manifest, data_version: `${manifest.data_version}x` }));
    const mismatched = await openIndexFiles(dir, built.version);
    expect(mismatched.index === null && mismatched.refused).toMatch(/data version/);
    writeFileSync(path, JSON.stringify({ ...manifest, creators: manifest.creators + 1 }));
    expect((await openIndexFiles(dir, built.version)).index).toBeNull();
    const skeleton = JSON.parse(JSON.stringify(manifest.skeleton)) as { data: { ids: { s: number } } };
    skeleton.data.ids.s += 1;
    writeFileSync(path, JSON.stringify({ ...manifest, skeleton }));
    const tampered = await openIndexFiles(dir, built.version);
    expect(tampered.index === null && tampered.refused).toMatch(/skeleton/);
    writeFileSync(path, good);
  });

  it('open with the handle table and the lookalike vectors their files hold (views over the file), as a build makes them', async () => {
    await writeIndexFiles(dir, built);
    const files = await openIndexFiles(dir, built.version);
    // a mapped open takes the vectors once their sections pass their check, after the open
    expect(await (files.index && files.checked)).toBeNull();
    const opened = files.index!;
    const data = opened.lookalikeView().data;
    const model = lookalikeModel(data);
    // read from the file, not built after the open: the arrays are views over the file's one buffer
    expect(model.content.forward.codes.buffer).toBe(data.ids.buffer);
    expect(model.audience.forward.shares.buffer).toBe(data.ids.buffer);
    const fresh = lookalikeModel(built.lookalikeView().data);
    expect(model.content.forward).toEqual(fresh.content.forward);
    expect(model.content.invNorm).toEqual(fresh.content.invNorm);
    expect(model.content.weight2).toEqual(fresh.content.weight2);
    expect(model.audience.forward).toEqual(fresh.audience.forward);
    expect(model.audience.codeOf).toEqual(fresh.audience.codeOf);
    expect(model.audience.countryHolders).toEqual(fresh.audience.countryHolders);
    expect(model.audience.interestHolders).toEqual(fresh.audience.interestHolders);
    const handle = built.item(data.ids[11]!)!.handle;
    expect(opened.handleMatches(handle)).toEqual(built.handleMatches(handle));
  });

  it('a damaged lookalike section: a mapped open serves searches and builds the vectors from the data; read into memory, refused; a manifest of the format before (4) is refused', async () => {
    await writeIndexFiles(dir, built);
    const manifest = JSON.parse(readFileSync(manifestPath(), 'utf8')) as IndexManifest;
    const skeleton = manifest.skeleton as { prepared: { lookalikes: { content: { invNorm: { s: number } } } } };
    const damagedSection = skeleton.prepared.lookalikes.content.invNorm.s;
    const [offset] = manifest.sections[damagedSection]!;
    const bin = join(dir, manifest.file);
    const bytes = readFileSync(bin);
    bytes[offset + 3]! ^= 0x01;
    writeFileSync(bin, bytes);
    const fails = new RegExp(`section ${damagedSection} fails its checksum`);
    // mapped: no search reads the vectors, so their sections are checked after the open
    const mapped = await openIndexFiles(dir, built.version);
    expect(mapped.index).not.toBeNull();
    expect(await (mapped.index && mapped.checked)).toMatch(fails);
    expect(answers(mapped.index!)).toEqual(answers(built));
    const vectors = await prepareLookalikeModel(mapped.index!.lookalikeView().data);
    expect(vectors.content.invNorm).toEqual(lookalikeModel(built.lookalikeView().data).content.invNorm);
    expect(vectors.content.invNorm.buffer).not.toBe(mapped.index!.lookalikeView().data.ids.buffer);
    setIndexFileMapping(false);
    try {
      const damaged = await openIndexFiles(dir, built.version);
      expect(damaged.index === null && damaged.refused).toMatch(fails);
    } finally {
      setIndexFileMapping(true);
    }
    // good files again (a new file: the damaged one stays mapped as it was), then their manifest made format 4
    await writeIndexFiles(dir, built);
    const good = readFileSync(manifestPath(), 'utf8');
    writeFileSync(manifestPath(), JSON.stringify({ ...(JSON.parse(good) as IndexManifest), format_version: 4 }));
    const older = await openIndexFiles(dir, built.version);
    expect(older.index === null && older.refused).toMatch(
      new RegExp(`format cds-search-index 4, expected cds-search-index ${FORMAT_VERSION}`),
    );
    const { holder: h } = await refreshOverRefusedFiles();
    expect(answers(h.current(await dataVersion(t.store))!)).toEqual(answers(built));
  }, 60_000);

  it('a new version’s files are read only where they changed: the unchanged sections come from the index opened before, with a fresh build’s answers', async () => {
    await writeIndexFiles(dir, built);
    const before = await openIndexFiles(dir, built.version);
    expect(before.index?.version).toBe(built.version);
    await t.store.run(`UPDATE creators SET followers = followers + 1000000, updated_at = TIMESTAMP '2026-11-22'
      WHERE creator_id % 50 = 0`);
    try {
      const fresh = await loadSearchIndex(t.store);
      const manifest = await writeIndexFiles(dir, fresh);
      const after = await openIndexFiles(dir, fresh.version);
      expect(after.index?.version).toBe(fresh.version);
      const reused = after.index ? after.steps!.reused : 0;
      // the text, terms, audience and vectors did not change; followers and fingerprints did
      expect(reused).toBeGreaterThan(manifest.bytes / 2);
      expect(reused).toBeLessThan(manifest.bytes);
      expect(answers(after.index!)).toEqual(answers(fresh));
      // the audience columns came from memory with the share kernel's copies of them (no copy again)
      const audience = (index: SearchIndex): unknown[] =>
        [
          { audience_age: ['18-24', '25-34'], audience_age_min_pct: 30 },
          { audience_gender: 'female', audience_gender_min_pct: 50 },
        ].map((f) => index.search(f, { key: 'followers', descending: true }, null, 15, searchContext(NOW)));
      expect(audience(after.index!)).toEqual(audience(fresh));
      const vectors = (index: SearchIndex) => lookalikeModel(index.lookalikeView().data).content.forward;
      expect(vectors(after.index!)).toEqual(vectors(fresh));
      // a third version takes its unchanged sections from the second (kept buffers within RETAIN_MAX)
      await t.store.run(`UPDATE creators SET followers = followers + 1, updated_at = TIMESTAMP '2026-11-23'
        WHERE creator_id % 70 = 0`);
      const third = await loadSearchIndex(t.store);
      await writeIndexFiles(dir, third, { keepOthers: 1 });
      const next = await openIndexFiles(dir, third.version);
      expect(next.index && next.steps!.reused).toBeGreaterThan(0);
      expect(answers(next.index!)).toEqual(answers(third));
      // the same version again (a retry, a refresh) is read whole: its file is what is in question
      const again = await openIndexFiles(dir, third.version);
      expect(again.index && again.steps?.reused).toBe(0);
      // a section whose place, length and CRC-32 match but whose digest does not is read, not taken: a fourth
      // version's manifest is edited so, on one section the third holds unchanged (the vectors' norms)
      await t.store.run(`UPDATE creators SET followers = followers + 1, updated_at = TIMESTAMP '2026-11-24'
        WHERE creator_id % 70 = 0`);
      const fourth = await loadSearchIndex(t.store);
      const fourthManifest = await writeIndexFiles(dir, fourth, { keepOthers: 1 });
      const norms = (fourthManifest.skeleton as { prepared: { lookalikes: { content: { invNorm: { s: number } } } } })
        .prepared.lookalikes.content.invNorm.s;
      const stem = fourthManifest.file.replace(/\.bin$/, '');
      const digests = [...fourthManifest.digests!];
      digests[norms] = digests[norms]!.replace(/^./, (c) => (c === '0' ? '1' : '0'));
      writeFileSync(join(dir, `${stem}.json`), JSON.stringify({ ...fourthManifest, digests }));
      const honest = await openIndexFiles(dir, fourth.version);
      expect(honest.index && honest.steps!.reused).toBeGreaterThan(0);
      // the edited section's bytes are the file's own; an unedited unchanged one still lies in the third's buffer
      // (the vectors taken once their check after a mapped open passes)
      expect(await (again.index && again.checked)).toBeNull();
      expect(await (honest.index && honest.checked)).toBeNull();
      const content = (index: SearchIndex) => lookalikeModel(index.lookalikeView().data).content;
      expect(content(honest.index!).invNorm.buffer).not.toBe(content(again.index!).invNorm.buffer);
      expect(content(honest.index!).forward.codes.buffer).toBe(content(again.index!).forward.codes.buffer);
      expect(answers(honest.index!)).toEqual(answers(fourth));
    } finally {
      await t.store.run('UPDATE creators SET followers = followers - 1000000 WHERE creator_id % 50 = 0');
      await t.store.run(
        "UPDATE creators SET followers = followers - 1 WHERE creator_id % 70 = 0 AND updated_at = TIMESTAMP '2026-11-23'",
      );
    }
  }, 60_000);

  it('files of an older data version are a base: opened, then brought to the store’s data by a delta, never answered as current', async () => {
    await writeIndexFiles(dir, built);
    // as a load leaves it: changed rows with a newer update time (a new data version)
    await t.store.run(`UPDATE creators SET followers = followers + 1000000, updated_at = TIMESTAMP '2026-11-22'
      WHERE creator_id % 50 = 0`);
    try {
      const version = await dataVersion(t.store);
      expect(version).not.toBe(built.version);
      const exact = await openIndexFiles(dir, version, { orNewest: false });
      expect(exact).toEqual({ index: null, refused: null });
      const { holder: h, told } = holder();
      await h.refresh(version);
      // the delta written as a segment over those files (test/unit/data/search-index-delta-files.test.ts)
      expect(told.map((o) => [o.kind, o.ok])).toEqual([
        ['open', true],
        ['delta', true],
        ['write-delta', true],
      ]);
      const current = h.current(version)!;
      expect(current.version).toBe(version);
      const fresh = await loadSearchIndex(t.store);
      expect(answers(current)).toEqual(answers(fresh));
    } finally {
      await t.store.run('UPDATE creators SET followers = followers - 1000000 WHERE creator_id % 50 = 0');
    }
  }, 60_000);

  it('an index prefetched before a snapshot switch is handed over once, for its version only', async () => {
    await writeIndexFiles(dir, built);
    expect((await prefetchIndexFiles(dir, built.version)).index).not.toBeNull();
    expect(takePrefetched(dir, 'another version')).toBeNull();
    expect(takePrefetched(dir, built.version)?.version).toBe(built.version);
    expect(takePrefetched(dir, built.version)).toBeNull();
  });

  it('a service over a store with index files says so, is not ready while it opens them, then is ready with the opened index', async () => {
    await writeIndexFiles(dir, await loadSearchIndex(t.store));
    const told: string[] = [];
    const service = new CreatorSearchService(t.store, { onIndexBuilt: (o) => told.push(`${o.kind} ${o.ok}`) });
    expect(service.hasIndexFiles()).toBe(true);
    expect(await service.indexReadiness(0)).toBe('first-build');
    expect(await service.indexReadiness(30_000)).toBe('current');
    expect(told).toEqual(['open true']);
    expect(new CreatorSearchService(t.store, { index: false }).hasIndexFiles()).toBe(false);
  });
});
