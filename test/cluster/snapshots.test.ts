import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SnapshotFollower } from '../../data/snapshots/snapshot-follower.js';
import { publishIfChanged, pruneSnapshots } from '../../data/snapshots/snapshot-publisher.js';
import { heartbeatReader } from '../../data/snapshots/snapshot.queries.js';
import { dataVersion } from '../../data/creators/creator-search.queries.js';
import { SearchProjection } from '../../data/creators/search-projection.js';
import { SearchIndexHolder } from '../../data/creators/search-index/search-index.holder.js';
import { loadSearchIndex } from '../../data/creators/search-index/search-index.loader.js';
import { SnapshotIndexWriter } from '../../data/snapshots/snapshot-index.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

describe('snapshots: published by the writer, followed by replicas, removed when unread', () => {
  let t: TestStore;
  let dir: string;
  beforeAll(async () => {
    t = await createTestStore({ creators: 150 });
    dir = mkdtempSync(join(tmpdir(), 'cds-snap-'));
  });
  afterAll(async () => {
    await t.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });
  const options = () => ({ dir, by: 'writer-test' });
  const bump = (n: number) =>
    t.store.run('UPDATE creators SET followers = followers + ?, updated_at = current_timestamp WHERE creator_id = 1', [
      n,
    ]);

  it('publishes only when the data changed; a follower switches to each new one and sees the change', async () => {
    const first = await publishIfChanged(t.store, t.state, options());
    expect(first).not.toBeNull();
    expect(await publishIfChanged(t.store, t.state, options())).toBeNull();
    const follower = await SnapshotFollower.open(t.state, { dir, reader: 'replica-test', firstTimeoutMs: 5_000 });
    try {
      // the replica's search projection is current in every snapshot: the writer rebuilt it before publishing
      const projection = new SearchProjection(follower.store);
      expect(await projection.isCurrent(await dataVersion(follower.store))).toBe(true);
      const before = await follower.store.one<{ followers: number }>(
        'SELECT followers FROM creators WHERE creator_id = 1',
      );
      await bump(1000);
      const second = await publishIfChanged(t.store, t.state, options());
      expect(second!.version).toBeGreaterThan(first!.version);
      expect(await follower.checkNow()).toBe(true);
      expect(follower.current).toBe(second!.version);
      const after = await follower.store.one<{ followers: number }>(
        'SELECT followers FROM creators WHERE creator_id = 1',
      );
      expect(after!.followers).toBe(before!.followers + 1000);
      expect(await projection.isCurrent(await dataVersion(follower.store))).toBe(true);
    } finally {
      await follower.stop();
    }
  });

  it('removes snapshots beyond the newest two that no live replica reads, and keeps one a replica still reads', async () => {
    const published = [];
    for (let i = 0; i < 4; i++) {
      await bump(1);
      published.push((await publishIfChanged(t.store, t.state, options()))!);
    }
    const oldest = published[0]!;
    await heartbeatReader(t.state, 'slow-replica', oldest.version);
    await pruneSnapshots(t.state, options());
    expect(existsSync(oldest.file)).toBe(true);
    expect(existsSync(published[1]!.file)).toBe(false);
    expect(existsSync(published[3]!.file)).toBe(true);
    await t.state.run(
      "UPDATE snapshot_readers SET seen_at = seen_at - INTERVAL '1 hour' WHERE reader = 'slow-replica'",
    );
    await pruneSnapshots(t.state, options());
    expect(existsSync(oldest.file)).toBe(false);
    expect(existsSync(published[2]!.file)).toBe(true);
  });

  it('a store of few creators is published without index files (a replica builds its index in a second)', async () => {
    await bump(1);
    const published = (await publishIfChanged(t.store, t.state, {
      ...options(),
      searchIndex: new SnapshotIndexWriter(),
    }))!;
    expect(published.index?.kind).toBe('small');
  });

  it('with the index files written beside each snapshot, a replica opens its index and takes the next one with its switch, never answering from SQL', async () => {
    // the holder's 5 % of these few creators: a third of them changed is past it, one is not
    const searchIndex = new SnapshotIndexWriter({ maxDelta: (n) => Math.floor(n / 20), minCreators: 0 });
    const withIndex = () => ({ ...options(), searchIndex });
    await bump(1);
    const first = (await publishIfChanged(t.store, t.state, withIndex()))!;
    expect(first.index?.kind).toBe('built');
    const follower = await SnapshotFollower.open(t.state, {
      dir,
      reader: 'replica-index',
      firstTimeoutMs: 5_000,
      prefetchIndex: true,
    });
    const told: string[] = [];
    const holder = new SearchIndexHolder(follower.store, { onBuilt: (o) => told.push(`${o.kind} ${o.ok}`) });
    try {
      const v1 = await dataVersion(follower.store);
      holder.current(v1);
      await holder.settled(30_000);
      expect(told).toEqual(['open true']);
      // a change of more than 5 % of the creators: the publisher builds and writes the new version's files
      await t.store.run(
        'UPDATE creators SET followers = followers + 7, updated_at = current_timestamp WHERE creator_id % 3 = 0',
      );
      const second = (await publishIfChanged(t.store, t.state, withIndex()))!;
      expect(second.index?.kind).toBe('built');
      expect(await follower.checkNow()).toBe(true);
      const v2 = await dataVersion(follower.store);
      // the first look at the new version finds its index at once: no build, no fallback to SQL
      const switched = holder.current(v2);
      expect(switched?.version).toBe(v2);
      const fresh = await loadSearchIndex(follower.store);
      const sort = { key: 'followers' as const, descending: true };
      expect(switched!.search({ niche: ['fitness'] }, sort, null, 20)).toEqual(
        fresh.search({ niche: ['fitness'] }, sort, null, 20),
      );
      // a change of one creator: no new index, a delta segment over the last files (docs/search.md, "Delta segments")
      await bump(1);
      const third = (await publishIfChanged(t.store, t.state, withIndex()))!;
      expect(third.index?.kind).toBe('delta');
      // the replica takes base + delta with the switch (the base it holds): no build, no delta computed, no SQL
      expect(await follower.checkNow()).toBe(true);
      const v3 = await dataVersion(follower.store);
      const withDelta = holder.current(v3);
      expect(withDelta?.version).toBe(v3);
      const fresh3 = await loadSearchIndex(follower.store);
      for (const filters of [{}, { niche: ['fitness'] }])
        expect(withDelta!.search(filters, sort, null, 20)).toEqual(fresh3.search(filters, sort, null, 20));
      expect(told).toEqual(['open true']);
    } finally {
      await holder.settled(30_000);
      await follower.stop();
    }
  }, 120_000);
});
