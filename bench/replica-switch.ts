// A replica's snapshot switch under a steady search load (issue 29: "a replica switch at 1M takes the new index
// in under 1 s, with no failed or paused request"). Two snapshots of one store: the second changes `--changed`
// creators; its index is published as full files (`--publish files`) or as a delta over the first's
// (`--publish delta`, docs/search.md "Delta segments"). A replica holding the first snapshot and its index
// serves searches from `--clients` closed-loop clients while the second is published; it switches as the
// follower does (data/snapshots/snapshot-follower.ts: the index opened before the store switches) and the run
// times publish → switch → the first search answered from the new index, and every search's latency by phase.
//
//   node bin/run-ts.mjs bench/replica-switch.ts <cds.duckdb> [--work DIR] [--changed N] [--publish files|delta]
//     [--clients N] [--before-s S] [--after-s S] [--no-lookalikes]
// (--no-lookalikes: the replica does not prepare the lookalike vectors with each index; docs/lookalikes.md. They
// are built in slices beside the load: an --after-s of 60 covers their build at 1M)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { dataVersion } from '../data/creators/creator-search.queries.js';
import { CreatorSearchService } from '../data/creators/creator-search.service.js';
import { indexDirOf, prefetchIndexFiles } from '../data/creators/search-index/index-files.js';
import { SnapshotIndexWriter } from '../data/snapshots/snapshot-index.js';
import { Store } from '../data/store.js';
import { generator } from './search-scale.bench.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    work: { type: 'string', default: '/tmp/replica-switch' },
    changed: { type: 'string', default: '100000' },
    publish: { type: 'string', default: 'files' },
    clients: { type: 'string', default: '4' },
    'before-s': { type: 'string', default: '5' },
    'after-s': { type: 'string', default: '5' },
    'no-lookalikes': { type: 'boolean', default: false },
  },
});
const source = positionals[0];
if (!source) throw new Error('usage: replica-switch.ts <cds.duckdb> [options]');
const changed = Number(values.changed);
const clients = Number(values.clients);
const publish = values.publish as 'files' | 'delta';
const log = (line: string): void => console.error(`[${new Date().toISOString()}] ${line}`);

// the snapshots: the first a copy of the store, the second the same with `changed` creators updated
const dir = join(values.work!, 'snapshots');
mkdirSync(dir, { recursive: true });
const first = join(dir, 'snap-1.duckdb');
const second = join(dir, `snap-2-${changed}.duckdb`);
if (!existsSync(first)) execFileSync('cp', [source, first]);
if (!existsSync(second)) {
  execFileSync('cp', [source, `${second}.partial`]);
  // DuckDB itself, not Store.open: a copy is the source store as it is, not migrated to this checkout's schema
  const instance = await DuckDBInstance.create(`${second}.partial`);
  const connection = await instance.connect();
  // the update time names the change, so that each `--changed` is a data version of its own
  await connection.run(`UPDATE creators SET followers = followers + 1,
      updated_at = TIMESTAMP '2026-11-27 05:00:00' + to_seconds(${changed})
    WHERE creator_id IN (SELECT creator_id FROM creators ORDER BY hash(creator_id) LIMIT ${changed})`);
  await connection.run('CHECKPOINT');
  connection.closeSync();
  instance.closeSync();
  execFileSync('mv', [`${second}.partial`, second]);
}
const versionOf = async (file: string): Promise<string> => {
  const store = await Store.open(file, { readOnly: true });
  try {
    return await dataVersion(store);
  } finally {
    await store.close();
  }
};
const [v1, v2] = [await versionOf(first), await versionOf(second)];
// both snapshots' index files as the writer publishes them, before the load (the writer is another process; a
// snapshot is recorded after its files): the first a full build, the second full files or a delta over the first
const writer = new SnapshotIndexWriter({ maxDelta: () => (publish === 'delta' ? changed : 0) });
log(`first snapshot's index: ${JSON.stringify(await writer.write(first, v1))}`);
const outcome = await writer.write(second, v2);
log(`second snapshot's index: ${JSON.stringify(outcome)}`);

// the replica: the first snapshot and its index, opened from the files
const store = await Store.open(first, { readOnly: true });
const lookalikes = !values['no-lookalikes'];
const tracked: Array<Promise<unknown>> = [];
const service = new CreatorSearchService(store, {
  projection: false,
  prepareLookalikes: lookalikes,
  track: (work) => tracked.push(work),
});
const t0 = performance.now();
while ((await service.currentIndex(600_000))?.version !== v1) await new Promise((r) => setTimeout(r, 50));
// the index's preparation after its open (handle table, lookalike vectors) done before the load starts
await Promise.all(tracked);
log(`replica ready on the first snapshot's index in ${Math.round(performance.now() - t0)} ms`);

// the load: closed-loop clients, each search a fresh filter set (no cache answers it)
interface Sample {
  at: number;
  ms: number;
  ok: boolean;
}
const samples: Sample[] = [];
let running = true;
const next = generator('mixed', 1_000_000, 29);
const client = async (): Promise<void> => {
  while (running) {
    const { filters, sort } = next();
    const at = performance.now();
    let ok = true;
    try {
      await service.search({ filters, sort, after: null, limit: 20, accountId: null });
    } catch {
      ok = false;
    }
    samples.push({ at, ms: performance.now() - at, ok });
    // a turn of the event loop between requests, as a server's socket reads give: a search answered from the
    // index resolves without I/O, and clients chaining them would otherwise hold the loop for their own promises
    await new Promise((r) => setImmediate(r));
  }
};
// the event loop's longest stall: a 5 ms timer's largest lateness
let lastTick = performance.now();
const stalls: Array<{ at: number; ms: number }> = [];
const ticker = setInterval(() => {
  const now = performance.now();
  stalls.push({ at: lastTick, ms: now - lastTick - 5 });
  lastTick = now;
}, 5);
const loads = Array.from({ length: clients }, () => client());
const load1 = loadavg();
await new Promise((r) => setTimeout(r, Number(values['before-s']) * 1000));

// the second snapshot published: the replica switches as the follower does (the index opened first, then the
// store), and searches go on meanwhile
log('switching to the second snapshot');
const published = performance.now();
const opened = await prefetchIndexFiles(indexDirOf(second), v2);
const prefetched = performance.now();
await store.switchTo(second);
const switched = performance.now();
let onNew = Number.NaN;
let firstLook = Number.NaN;
for (;;) {
  const looked = performance.now();
  const index = await service.currentIndex(0);
  if (Number.isNaN(firstLook)) firstLook = performance.now() - looked;
  if (index?.version === v2) {
    onNew = performance.now();
    break;
  }
  if (performance.now() - switched > 60_000) break;
  await new Promise((r) => setTimeout(r, 2));
}
// the new index's preparation (handle table, lookalike vectors), in slices beside the load: when it ends
let preparedAt = Number.NaN;
void Promise.all(tracked).then(() => {
  preparedAt = performance.now();
});
await new Promise((r) => setTimeout(r, Number(values['after-s']) * 1000));
running = false;
await Promise.all(loads);
clearInterval(ticker);
const load2 = loadavg();

const phase = (from: number, to: number) => {
  const xs = samples.filter((s) => s.at >= from && s.at < to);
  const ms = xs.map((s) => s.ms).sort((a, b) => a - b);
  const q = (p: number): number => Math.round((ms[Math.min(ms.length - 1, Math.floor(p * ms.length))] ?? 0) * 10) / 10;
  const stall = stalls.filter((s) => s.at >= from && s.at < to).reduce((m, s) => Math.max(m, s.ms), 0);
  return {
    searches: xs.length,
    per_s: Math.round((xs.length / (to - from)) * 1000),
    failed: xs.filter((s) => !s.ok).length,
    p50_ms: q(0.5),
    p99_ms: q(0.99),
    max_ms: q(1),
    loop_stall_max_ms: Math.round(stall),
  };
};
const end = performance.now();
console.log(
  JSON.stringify(
    {
      publish,
      changed,
      clients,
      lookalikes_prepared: lookalikes,
      outcome,
      index_opened: opened.index !== null,
      refused: opened.index ? null : opened.refused,
      open_before_switch_ms: Math.round(prefetched - published),
      // new files: the worker's read and checksums, the decode and the set-up on the event loop (ms); the bytes
      // taken from the index held instead of read (`reused`)
      open_steps_ms:
        opened.index && opened.steps
          ? Object.fromEntries(Object.entries(opened.steps).map(([k, v]) => [k, Math.round(v)]))
          : null,
      store_switch_ms: Math.round(switched - prefetched),
      switch_to_new_index_ms: Math.round(onNew - switched),
      // the first look after the switch: the new file's data version read, the prefetched index taken
      first_look_ms: Math.round(firstLook),
      published_to_new_index_ms: Math.round(onNew - published),
      // null: still preparing when the run ended (a longer --after-s covers it)
      published_to_prepared_ms: Math.round(preparedAt - published),
      phases: {
        before: phase(published - Number(values['before-s']) * 1000, published),
        opening: phase(published, prefetched),
        switch_to_new_index: phase(prefetched, onNew),
        after: phase(onNew, end),
      },
      loadavg: { start: load1.map((x) => Math.round(x * 10) / 10), end: load2.map((x) => Math.round(x * 10) / 10) },
    },
    null,
    2,
  ),
);
await store.close();
process.exit(0);
