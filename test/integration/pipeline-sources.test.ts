import { mkdirSync, readdirSync, readFileSync, copyFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import cron from 'node-cron';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PipelineDefinition, PipelineSource } from '../../pipelines/engine/pipeline.js';
import { runPipeline } from '../../pipelines/engine/runner.js';
import { createInboxWatcher, createScheduler } from '../../pipelines/engine/scheduler.js';
import { readCursor } from '../../pipelines/engine/run.queries.js';
import { httpCreatorsPipeline } from '../../pipelines/http-creators.pipeline.js';
import { getPipeline } from '../../pipelines/registry.js';
import { INBOX_NAMING_RULE, inboxSource } from '../../pipelines/sources/inbox.source.js';
import { CREATOR_COLUMNS, creatorRow, writeCsv } from '../fixtures/pipelines/files.js';
import { eventually } from '../helpers/eventually.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

let t: TestStore;
beforeAll(async () => {
  t = await createTestStore({ creators: 1000 });
  mkdirSync(t.config.inboxDir, { recursive: true });
});
afterAll(async () => {
  await t.cleanup();
});
const deps = () => ({ store: t.store, config: t.config });

/** A promise and the function that resolves it. */
function openable(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** A pipeline whose source holds each run until `gate` opens. */
function gatedPipeline(
  name: string,
  schedule: string | null,
  gate: Promise<void>,
  counter: { active: number; max: number; calls: number },
): PipelineDefinition {
  const source: PipelineSource = {
    kind: 'files',
    next: async () => {
      counter.calls++;
      counter.active++;
      counter.max = Math.max(counter.max, counter.active);
      await gate;
      counter.active--;
      return null;
    },
  };
  return {
    name,
    description: 'gated',
    entity: 'creators',
    disposition: 'merge',
    key: ['platform', 'handle'],
    cursor: 'file-checksum',
    schedule,
    source: () => source,
  };
}

describe('no overlap', () => {
  it('a second run of a pipeline while one is in flight does not run', async () => {
    const counter = { active: 0, max: 0, calls: 0 };
    const gate = openable();
    const p = gatedPipeline('slow-direct', null, gate.promise, counter);
    const runs = [runPipeline(deps(), p), runPipeline(deps(), p)];
    // one of the two answers while the other is held in flight
    const first = await Promise.race(runs);
    expect(first.skipped).toBe('already running');
    gate.resolve();
    const [a, b] = await Promise.all(runs);
    expect([a?.skipped, b?.skipped].filter(Boolean)).toEqual(['already running']);
    expect(counter).toMatchObject({ max: 1, calls: 1 });
  });

  it('scheduled ticks that come while the last run is going are skipped', async () => {
    const counter = { active: 0, max: 0, calls: 0 };
    const gate = openable();
    const scheduler = createScheduler(deps(), [gatedPipeline('slow-scheduled', '* * * * * *', gate.promise, counter)]);
    scheduler.start();
    try {
      // the run holds until node-cron has blocked a tick that came while it was going (its overlap event)
      const task = [...cron.getTasks().values()].find((x) => x.name === 'pipeline:slow-scheduled');
      expect(task).toBeDefined();
      const overlapped = new Promise<void>((r) => task?.once('execution:overlap', () => r()));
      await eventually(() => counter.calls === 1, 10_000, 'the first scheduled run');
      await overlapped;
      expect(counter).toMatchObject({ calls: 1, active: 1 });
    } finally {
      gate.resolve();
      await scheduler.stop();
    }
    expect(counter.calls).toBeLessThanOrEqual(2);
    expect(counter.max).toBe(1);
  });
});

describe('inbox', () => {
  it('loads files named after the entity, moves them to done/, and sets an unreadable one aside with its reason', async () => {
    writeCsv(t.config.inboxDir, 'creators-inbox-good.csv', CREATOR_COLUMNS, [creatorRow({ handle: '@inbox_one' })]);
    copyFileSync(
      join(import.meta.dirname, '../fixtures/pipelines/creators-wrong-header.csv'),
      join(t.config.inboxDir, 'creators-inbox-bad.csv'),
    );
    writeCsv(t.config.inboxDir, 'posts-not-for-creators.csv', ['platform'], []);
    const outcome = await runPipeline(deps(), getPipeline('creators'), {
      source: inboxSource('creators', { settleMs: 0 }),
    });
    expect(outcome.runs.map((r) => [r.source, r.status]).sort()).toEqual([
      ['inbox:creators-inbox-bad.csv', 'failed'],
      ['inbox:creators-inbox-good.csv', 'succeeded'],
    ]);
    expect(readdirSync(t.config.inboxDir).sort()).toEqual(['done', 'failed', 'posts-not-for-creators.csv']);
    expect(readdirSync(join(t.config.inboxDir, 'done'))[0]).toMatch(/creators-inbox-good\.csv$/);
    const failed = readdirSync(join(t.config.inboxDir, 'failed')).sort();
    expect(failed).toHaveLength(2);
    expect(
      readFileSync(join(t.config.inboxDir, 'failed', failed.find((f) => f.endsWith('.reason.txt')) ?? ''), 'utf8'),
    ).toContain('unknown column(s) user_name');
    expect(await t.store.one(`SELECT count(*) AS n FROM creators WHERE handle = '@inbox_one'`)).toEqual({ n: 1 });
  });

  it('moves a file whose name matches no entity or format to failed/ with the naming rule, and logs it once', async () => {
    for (const name of ['my-creators.csv', 'creators.xlsx', 'notes.txt'])
      writeFileSync(join(t.config.inboxDir, name), 'platform,handle\n');
    writeFileSync(join(t.config.inboxDir, '.hidden-partial'), '');
    const warnings: string[] = [];
    const logger = { info: () => undefined, warn: (_obj: object, msg?: string) => void warnings.push(msg ?? '') };
    await runPipeline({ ...deps(), logger }, getPipeline('creators'), {
      source: inboxSource('creators', { settleMs: 0 }),
    });
    await runPipeline({ ...deps(), logger }, getPipeline('posts'), { source: inboxSource('posts', { settleMs: 0 }) });
    const left = readdirSync(t.config.inboxDir);
    expect(left.filter((n) => ['my-creators.csv', 'creators.xlsx', 'notes.txt'].includes(n))).toEqual([]);
    expect(left).toContain('.hidden-partial');
    const failed = readdirSync(join(t.config.inboxDir, 'failed'));
    for (const name of ['my-creators.csv', 'creators.xlsx', 'notes.txt']) {
      const reason = failed.find((f) => f.endsWith(`-${name}.reason.txt`));
      expect(reason, name).toBeDefined();
      expect(readFileSync(join(t.config.inboxDir, 'failed', reason ?? ''), 'utf8')).toContain(
        `${name}: the inbox cannot tell what this file is from its name. ${INBOX_NAMING_RULE}`,
      );
    }
    expect(warnings.filter((w) => w.includes('names no entity or format')).sort()).toEqual([
      'inbox file creators.xlsx names no entity or format: moved to inbox/failed/ (see its .reason.txt)',
      'inbox file my-creators.csv names no entity or format: moved to inbox/failed/ (see its .reason.txt)',
      'inbox file notes.txt names no entity or format: moved to inbox/failed/ (see its .reason.txt)',
    ]);
  });

  it('never follows a symbolic link or loads a folder: each is set aside with its reason and its target never read', async () => {
    const secret = join(t.dir, 'outside-secret.csv');
    writeFileSync(
      secret,
      'platform,handle,display_name,niche,followers,updated_at\ntiktok,@secret_link,TOP SECRET,tech,1,2026-11-20 00:00:00\n',
    );
    symlinkSync(secret, join(t.config.inboxDir, 'creators-linked.csv'));
    mkdirSync(join(t.config.inboxDir, 'creators-folder.csv'));
    const warnings: string[] = [];
    const logger = { info: () => undefined, warn: (_obj: object, msg?: string) => void warnings.push(msg ?? '') };
    const outcome = await runPipeline({ ...deps(), logger }, getPipeline('creators'), {
      source: inboxSource('creators', { settleMs: 0 }),
    });
    expect(outcome.runs).toEqual([]);
    expect(readdirSync(t.config.inboxDir).filter((n) => n.startsWith('creators-'))).toEqual([]);
    const failed = readdirSync(join(t.config.inboxDir, 'failed'));
    for (const [name, what] of [
      ['creators-linked.csv', 'a symbolic link'],
      ['creators-folder.csv', 'a folder'],
    ] as const) {
      const reason = readFileSync(
        join(t.config.inboxDir, 'failed', failed.find((f) => f.endsWith(`-${name}.reason.txt`)) ?? ''),
        'utf8',
      );
      expect(reason).toContain(`${name}: is ${what}; the inbox loads only regular files`);
      expect(reason).not.toContain('TOP SECRET');
    }
    expect(readFileSync(secret, 'utf8')).toContain('TOP SECRET');
    expect(await t.store.one(`SELECT count(*) AS n FROM creators WHERE handle = '@secret_link'`)).toEqual({ n: 0 });
    expect(warnings.filter((w) => w.includes('is not a regular file'))).toHaveLength(2);
  });

  it('leaves an unmatched file that is still being written where it is', async () => {
    writeFileSync(join(t.config.inboxDir, 'upload.tmp'), 'partial');
    await runPipeline(deps(), getPipeline('creators'), { source: inboxSource('creators', { settleMs: 60_000 }) });
    expect(readdirSync(t.config.inboxDir)).toContain('upload.tmp');
    rmSync(join(t.config.inboxDir, 'upload.tmp'));
  });

  it('the watcher picks up a dropped file within seconds', async () => {
    const watcher = createInboxWatcher(deps(), [getPipeline('creators')]);
    watcher.start();
    try {
      writeCsv(t.config.inboxDir, 'creators-watched.csv', CREATOR_COLUMNS, [creatorRow({ handle: '@watched_one' })]);
      await eventually(
        async () => (await t.store.one(`SELECT 1 AS x FROM creators WHERE handle = '@watched_one'`)) !== undefined,
        8_000,
        'the watched file to load',
      );
    } finally {
      await watcher.stop();
    }
    expect(await t.store.one(`SELECT count(*) AS n FROM creators WHERE handle = '@watched_one'`)).toEqual({ n: 1 });
  });
});

describe('demo source', () => {
  it('produces follower drift, posts and campaign metrics through the normal load, with events', async () => {
    const outcome = await runPipeline(deps(), getPipeline('demo'));
    const run = outcome.runs[0];
    expect(run).toMatchObject({ status: 'succeeded', source: 'demo' });
    expect(run?.rows_changed).toBeGreaterThan(0);
    expect(run?.events_emitted).toBeGreaterThan(0);
    expect(await readCursor(t.store, 'demo')).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(readdirSync(join(t.config.dataDir, 'demo-feed'))).toEqual([]);
  });
});

describe('HTTP JSON source', () => {
  let server: Server;
  let url = '';
  const requests: string[] = [];
  let failNext = 1;
  let mode: 'ok' | 'gone' = 'ok';
  const records = [
    creatorRow({ handle: '@api_one', updated_at: '2026-11-20T10:00:00Z' }),
    creatorRow({ handle: '@api_two', updated_at: '2026-11-20T12:00:00Z' }),
    creatorRow({ handle: '@api_three', updated_at: '2026-11-21T08:00:00Z' }),
  ];
  beforeAll(async () => {
    server = createServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      requests.push(u.search);
      if (mode === 'gone') return void res.writeHead(404).end();
      const since = u.searchParams.get('updated_since');
      const fresh = records.filter((r) => !since || Date.parse(String(r['updated_at'])) > Date.parse(since));
      if (u.searchParams.get('cursor') === 'p2' && failNext-- > 0) return void res.writeHead(503).end();
      const page = u.searchParams.get('cursor') === 'p2' ? fresh.slice(2) : fresh.slice(0, 2);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ data: page, next_cursor: !u.searchParams.get('cursor') && fresh.length > 2 ? 'p2' : null }),
        );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/creators`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  it('pages with the cursor, retries a transient 503, and advances the watermark with the load', async () => {
    const pipeline = httpCreatorsPipeline('partner-api', { url, baseDelayMs: 5, pageSize: 2 });
    const first = await runPipeline(deps(), pipeline);
    expect(first.runs[0]).toMatchObject({ status: 'succeeded', rows_read: 3, rows_changed: 3 });
    expect(requests.filter((q) => q.includes('cursor=p2'))).toHaveLength(2); // one 503, one retry
    expect(await readCursor(t.store, 'partner-api')).toBe('2026-11-21T08:00:00Z');
    const second = await runPipeline(deps(), pipeline);
    expect(second.runs).toEqual([]);
    expect(requests.at(-1)).toContain('updated_since=2026-11-21T08%3A00%3A00Z');
  });

  it('a terminal answer fails the run and leaves the watermark where it was', async () => {
    mode = 'gone';
    const pipeline = httpCreatorsPipeline('partner-api', { url, baseDelayMs: 5 });
    const outcome = await runPipeline(deps(), pipeline);
    expect(outcome.runs[0]).toMatchObject({ status: 'failed' });
    expect(outcome.runs[0]?.error).toContain('answered 404');
    expect(await readCursor(t.store, 'partner-api')).toBe('2026-11-21T08:00:00Z');
    expect(readdirSync(join(t.config.dataDir, 'http-staging'))).toEqual([]);
  });
});
