import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../pipelines/engine/pipeline.js';
import { emitCreatorEvents, snapshotCreators } from '../../pipelines/engine/creator-events.js';
import { runPipeline } from '../../pipelines/engine/runner.js';
import { pipelineForEntity } from '../../pipelines/registry.js';
import { filesSource } from '../../pipelines/sources/files.source.js';
import { POST_COLUMNS, postRow, writeCsv } from '../fixtures/pipelines/files.js';
import { creatorAt } from '../helpers/creators.js';
import { createTestStore, type TestStore, writeContentLists } from '../helpers/store.js';
import type { ContentList } from '../../data/derive/content-metrics.js';

let t: TestStore;

beforeAll(async () => {
  t = await createTestStore({ creators: 300 });
});
afterAll(async () => t.cleanup());

type Changes = Record<string, { from: unknown; to: unknown }>;

async function lastEventSeq(): Promise<number> {
  return Number((await t.store.one<{ n: number | null }>('SELECT max(seq) AS n FROM events'))?.n ?? 0);
}

async function eventsSince(seq: number, creatorId: number): Promise<Changes[]> {
  const rows = await t.store.all<{ payload: string }>(
    `SELECT payload FROM events WHERE seq > ? AND creator_id = ? AND type = 'creator.updated' ORDER BY seq`,
    [seq, creatorId],
  );
  return rows.map((r) => (JSON.parse(r.payload) as { changes: Changes }).changes);
}

type Lists = Partial<Record<ContentList, string>>;

/**
 * What a merge does around a write: snapshot the creator, change it (`set` on its row, `lists` as SQL list
 * literals in its content row, the others kept, as the derivation stores them), diff, in one transaction.
 */
async function changeAndDiff(creatorId: number, set: string | null, lists: Lists = {}): Promise<number> {
  return t.store.transaction(async (tx) => {
    await tx.run('CREATE OR REPLACE TEMP TABLE diff_ids AS SELECT ?::INTEGER AS creator_id', [creatorId]);
    await snapshotCreators(tx, 'diff_ids');
    if (set) await tx.run(`UPDATE creators SET ${set} WHERE creator_id = ?`, [creatorId]);
    if (Object.keys(lists).length > 0) await writeContentLists(tx, creatorId, lists);
    return emitCreatorEvents(tx);
  });
}

describe('creator.updated for content fields', () => {
  it('reports a list whose members changed, as JSON arrays in their stored order', async () => {
    const c = await creatorAt(t.store, 0);
    await changeAndDiff(c.creator_id, null, {
      hashtags: "['fitness', 'food']",
      brands: "['@nike']",
      linked_platforms: '[]',
    });
    const seq = await lastEventSeq();
    expect(
      await changeAndDiff(c.creator_id, null, { brands: "['@adidas', '@nike']", linked_platforms: "['tiktok']" }),
    ).toBe(1);
    expect(await eventsSince(seq, c.creator_id)).toEqual([
      {
        brands: { from: ['@nike'], to: ['@adidas', '@nike'] },
        linked_platforms: { from: [], to: ['tiktok'] },
      },
    ]);
  });

  it('stays silent when a list is only reordered, when an empty list stays empty, or when an underived NULL becomes false', async () => {
    const c = await creatorAt(t.store, 1);
    await changeAndDiff(c.creator_id, 'has_contact = NULL', { hashtags: "['fitness', 'food']", mentions: '[]' });
    const seq = await lastEventSeq();
    expect(
      await changeAndDiff(c.creator_id, 'has_contact = false', { hashtags: "['food', 'fitness']", mentions: '[]' }),
    ).toBe(0);
    expect(await eventsSince(seq, c.creator_id)).toEqual([]);
  });

  it('reports has_contact and sponsored figures, and leaves out the activity clock', async () => {
    const c = await creatorAt(t.store, 2);
    await changeAndDiff(
      c.creator_id,
      `has_contact = false, sponsored_pct = 10, last_posted_at = TIMESTAMP '2026-11-01 00:00:00', posts_per_week = 1`,
    );
    const seq = await lastEventSeq();
    await changeAndDiff(
      c.creator_id,
      `last_posted_at = TIMESTAMP '2026-11-20 00:00:00', posts_per_week = 2, reels_avg_views = 999`,
    );
    expect(await eventsSince(seq, c.creator_id)).toEqual([]);
    await changeAndDiff(c.creator_id, `has_contact = true, sponsored_pct = 12.5`);
    expect(await eventsSince(seq, c.creator_id)).toEqual([
      { has_contact: { from: false, to: true }, sponsored_pct: { from: 10, to: 12.5 } },
    ]);
  });
});

describe('creator.updated from a posts file', () => {
  const COLUMNS = [...POST_COLUMNS, 'views'];

  async function ingestPosts(
    name: string,
    rows: Array<Record<string, string | number | boolean | null | undefined>>,
    columns = COLUMNS,
  ): Promise<RunRecord> {
    const file = writeCsv(t.dir, name, columns, rows);
    const outcome = await runPipeline({ store: t.store, config: t.config }, pipelineForEntity('posts'), {
      source: filesSource([{ entity: 'posts', file, format: 'csv' }]),
    });
    const run = outcome.runs[0];
    if (!run) throw new Error('no run');
    return run;
  }

  it('a sponsored post for a new brand emits brands {from, to}; ingesting the same file again emits nothing', async () => {
    const c = await creatorAt(t.store, 3);
    const before = await t.store.one<{ brands: string[] | null }>(
      'SELECT brands FROM creator_content WHERE creator_id = ?',
      [c.creator_id],
    );
    const from = before?.brands ?? [];
    expect(from).not.toContain('@brandnew_co');
    const postedAt = new Date(Date.now() - 3_600_000).toISOString();
    const rows = [
      postRow(c, {
        post_id: 'evt-brand-1',
        posted_at: postedAt,
        likes: 100,
        comments: 5,
        views: 2000,
        sponsored: true,
        caption: 'Loving my new kit #ad @brandnew_co',
        brand: '@BrandNew_Co',
      }),
    ];
    const seq = await lastEventSeq();
    const run = await ingestPosts('posts-new-brand.csv', rows);
    expect(run).toMatchObject({ status: 'succeeded', rows_changed: 1 });
    const events = await eventsSince(seq, c.creator_id);
    expect(events).toHaveLength(1);
    const brands = events[0]?.['brands'];
    expect(brands?.from).toEqual(from);
    expect([...((brands?.to ?? []) as string[])].sort()).toEqual([...from, '@brandnew_co'].sort());

    const again = await lastEventSeq();
    // the same rows again, columns in another order so the file is read rather than recognised as already ingested
    expect(await ingestPosts('posts-new-brand-again.csv', rows, [...COLUMNS].reverse())).toMatchObject({
      status: 'succeeded',
      rows_read: 1,
      rows_changed: 0,
      events_emitted: 0,
    });
    expect(await eventsSince(again, c.creator_id)).toEqual([]);
  });
});
