import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataVersion } from '../../data/creators/creator-search.queries.js';
import { Store } from '../../data/store.js';
import type { LoadProgress, RunRecord } from '../../pipelines/engine/pipeline.js';
import { SCORED_STEP } from '../../pipelines/engine/runner.js';
import { ingestFiles } from '../../pipelines/ingest.service.js';
import { createPipelineWorkers } from '../../pipelines/workers.js';
import { ingestAndDieAt } from '../helpers/crash.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

let t: TestStore;

beforeAll(async () => {
  t = await createTestStore({ creators: 60 });
});
afterAll(async () => {
  // the crash tests reopen the store after the child process
  await t.store.close();
  await t.cleanup();
});

/** A CSV of `count` creators nobody has seen, handles `@<prefix><i>`. */
async function newCreatorsFile(prefix: string, count: number): Promise<string> {
  const file = join(t.dir, `creators-${prefix}.csv`);
  await t.store.run(
    `COPY (
      SELECT 'tiktok' AS platform, '@${prefix}' || i AS handle, 'Fresh ' || i AS display_name, 'Cooking every day' AS bio, 'food' AS niche,
        'US' AS country, NULL AS city, 'en' AS language, 1000 + i * 37 AS followers, 10 AS "following", 5 AS posts_count, false AS verified,
        TIMESTAMP '2026-11-21 12:00:00' AS updated_at
      FROM range(?) t(i)
    ) TO '${file}' (HEADER)`,
    [count],
  );
  return file;
}

type Derived = { n: number; scored: number; texts: number; features: number };

async function derivedOf(store: Store, prefix: string): Promise<Derived> {
  const row = await store.one<Derived>(
    `SELECT count(*) AS n, count(authenticity_checked_at) AS scored, count(search_text) AS texts,
      (SELECT count(*) FROM authenticity_features f WHERE f.creator_id IN (SELECT creator_id FROM creators WHERE handle LIKE $1)) AS features
    FROM creators WHERE handle LIKE $1`,
    [`@${prefix}%`],
  );
  return row ?? { n: 0, scored: 0, texts: 0, features: 0 };
}

async function pendingRecords(store: Store): Promise<number> {
  return (await store.one<{ n: number }>('SELECT count(*) AS n FROM pending_derivations'))?.n ?? 0;
}

describe('a load of purely new creators derives them right after its commit', () => {
  it('ends the run with their scores, verdicts and search text computed, no pending record left, and a new data version', async () => {
    const file = await newCreatorsFile('fresh', 40);
    const before = await dataVersion(t.store);
    const steps: string[] = [];
    const [outcome] = await ingestFiles({ store: t.store, config: t.config }, [file], 'creators', (p: LoadProgress) =>
      steps.push(p.step),
    );
    const run = outcome?.runs[0];
    expect(run).toMatchObject({
      status: 'succeeded',
      rows_loaded: 40,
      rows_changed: 40,
      events_emitted: 0,
      warnings: [],
    });
    // the scores commit first, then the features and peer statistics
    expect(steps.indexOf(SCORED_STEP)).toBeGreaterThan(steps.indexOf('deriving creators'));
    expect(await derivedOf(t.store, 'fresh')).toEqual({ n: 40, scored: 40, texts: 40, features: 40 });
    const verdicts = await t.store.one<{ n: number }>(
      `SELECT count(authenticity_verdict) AS n FROM creators WHERE handle LIKE '@fresh%'`,
    );
    expect(verdicts?.n).toBe(40);
    expect(await pendingRecords(t.store)).toBe(0);
    // the derivation committed after the load: its check time is later than the run's record
    const order = await t.store.one<{ after: boolean }>(
      `SELECT min(c.authenticity_checked_at) >= max(r.finished_at) AS after
      FROM creators c, pipeline_runs r WHERE c.handle LIKE '@fresh%' AND r.run_id = ?`,
      [run?.run_id ?? ''],
    );
    expect(order?.after).toBe(true);
    expect(await dataVersion(t.store)).not.toBe(before);
  });

  /** Loads `file` with `table` renamed away (a fault the derivation meets and the load does not); answers the run. */
  async function loadWithout(table: string, file: string): Promise<RunRecord | undefined> {
    await t.store.run(`ALTER TABLE ${table} RENAME TO ${table}_away`);
    try {
      return (await ingestFiles({ store: t.store, config: t.config }, [file], 'creators'))[0]?.runs[0];
    } finally {
      await t.store.run(`ALTER TABLE ${table}_away RENAME TO ${table}`);
    }
  }

  /** The next load (of `next`, new creators too) finishes the pending derivation of the `stuck` creators first. */
  async function expectNextLoadFinishes(stuck: string, count: number, next: string): Promise<void> {
    await ingestFiles({ store: t.store, config: t.config }, [await newCreatorsFile(next, 2)], 'creators');
    expect(await derivedOf(t.store, stuck)).toEqual({ n: count, scored: count, texts: count, features: count });
    expect(await pendingRecords(t.store)).toBe(0);
  }

  it('when the scoring after the commit fails, the run still succeeds, says so in a warning, and the next load derives them first', async () => {
    // the scores read the peer statistics
    const run = await loadWithout('authenticity_peer_stats', await newCreatorsFile('stuck', 15));
    expect(run).toMatchObject({ status: 'succeeded', rows_loaded: 15 });
    expect(run?.warnings.join('\n')).toMatch(
      /scores and verdicts of 15 new creator\(s\) are not computed yet .*next load or at the next start/,
    );
    const stored = await t.store.one<{ warnings: string }>('SELECT warnings FROM pipeline_runs WHERE run_id = ?', [
      run?.run_id ?? '',
    ]);
    expect(stored?.warnings).toContain('not computed yet');
    // the search text came with the load itself
    expect(await derivedOf(t.store, 'stuck')).toEqual({ n: 15, scored: 0, texts: 15, features: 0 });
    expect(await pendingRecords(t.store)).toBe(1);

    await expectNextLoadFinishes('stuck', 15, 'after');
  });

  it('when storing their features fails after the scores committed, the scores stay, the run says so, and the next load stores them', async () => {
    const run = await loadWithout('authenticity_features', await newCreatorsFile('half', 12));
    expect(run).toMatchObject({ status: 'succeeded', rows_loaded: 12 });
    expect(run?.warnings.join('\n')).toMatch(
      /authenticity features of 12 new creator\(s\) are not stored yet .*their scores are/,
    );
    expect(await derivedOf(t.store, 'half')).toEqual({ n: 12, scored: 12, texts: 12, features: 0 });
    expect(await pendingRecords(t.store)).toBe(1);

    await expectNextLoadFinishes('half', 12, 'next');
  });

  it('a file that changes existing creators and adds new ones still derives in the load, with creator.updated events as before', async () => {
    const file = join(t.dir, 'creators-mixed.csv');
    await t.store.run(`COPY (
        (SELECT platform, handle, display_name, bio, niche, country, city, language, followers * 3 AS followers, "following", posts_count,
          verified, TIMESTAMP '2026-11-21 23:00:00' AS updated_at FROM creators WHERE handle NOT LIKE '@fresh%' ORDER BY creator_id LIMIT 5)
        UNION ALL
        SELECT 'youtube', '@mixed' || i, 'Mixed ' || i, NULL, 'tech', 'GB', NULL, 'en', 5000 + i, NULL, NULL, true, TIMESTAMP '2026-11-21 23:00:00'
        FROM range(10) t(i)
      ) TO '${file}' (HEADER)`);
    const steps: string[] = [];
    const [outcome] = await ingestFiles({ store: t.store, config: t.config }, [file], 'creators', (p: LoadProgress) =>
      steps.push(p.step),
    );
    expect(outcome?.runs[0]).toMatchObject({ status: 'succeeded', rows_loaded: 15, events_emitted: 5 });
    expect(steps).not.toContain('deriving creators');
    expect(await derivedOf(t.store, 'mixed')).toEqual({ n: 10, scored: 10, texts: 10, features: 10 });
    const events = await t.store.one<{ n: number }>(`SELECT count(*) AS n FROM events WHERE type = 'creator.updated'
      AND json_extract(payload, '$.changes.followers') IS NOT NULL AND creator_id IN
        (SELECT creator_id FROM creators WHERE handle NOT LIKE '@fresh%' AND handle NOT LIKE '@mixed%')`);
    expect(events?.n).toBeGreaterThanOrEqual(5);
    expect(await pendingRecords(t.store)).toBe(0);
  });
});

describe('when the process dies after the load commits, the start-up recovery finishes the derivation', () => {
  it.each([
    {
      when: 'before the scores',
      step: 'deriving creators',
      prefix: 'orphan',
      atCrash: { n: 25, scored: 0, texts: 25, features: 0 },
    },
    {
      when: 'after the scores, before the features',
      step: SCORED_STEP,
      prefix: 'halfway',
      atCrash: { n: 25, scored: 25, texts: 25, features: 0 },
    },
  ])('$when', async ({ step, prefix, atCrash }) => {
    const file = await newCreatorsFile(prefix, 25);
    await t.store.close();
    await ingestAndDieAt(t.dir, file, step);
    const store = await Store.open(t.config.dbPath, { threads: 2 });
    try {
      // The load committed (rows, search text and its run record), the rest of its derivation did not: the record says so.
      expect(await derivedOf(store, prefix)).toEqual(atCrash);
      expect(await pendingRecords(store)).toBe(1);
      const run = await store.one<{ status: string }>('SELECT status FROM pipeline_runs WHERE source LIKE ?', [
        `%creators-${prefix}.csv`,
      ]);
      expect(run?.status).toBe('succeeded');

      const recovery = createPipelineWorkers({ store, config: t.config }).find(
        (w) => w.name === 'pipeline-run-recovery',
      );
      recovery?.start();
      await recovery?.stop();
      expect(await derivedOf(store, prefix)).toEqual({ n: 25, scored: 25, texts: 25, features: 25 });
      expect(await pendingRecords(store)).toBe(0);
    } finally {
      await store.close();
      t.store = await Store.open(t.config.dbPath, { threads: 2 });
    }
  });
});
