// The cluster bench's slow half: change-to-visible lag through the CLI and the
// replicas' profile endpoint, and the snapshot figures the processes log
// (publish, switch) beside a `cp` of the same file.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { latestSnapshot } from '../data/snapshots/snapshot.queries.js';
import { PgState } from '../data/state/pg-state.js';
import { cds, sleep } from '../test/helpers/drill-kit.js';
import { latency, RoundRobin, type ProfileTarget } from './cluster-load.js';
import { median } from './stats.js';

/** Lag from an ingest's return until every replica answers the new value. */
export interface LagResult {
  interval_s: number;
  p50_ms: number;
  p99_ms: number;
  samples: number;
  ingest_ms: number;
}

/** The creator whose followers each lag sample changes (its other required columns as stored). */
export interface LagCreator extends ProfileTarget {
  niche: string;
  followers: number;
}

export interface LagSetup {
  /** Where the one-row files are written. */
  run: string;
  writerDir: string;
  databaseUrl: string;
  /** The replicas' base URLs. */
  apis: readonly string[];
  keys: readonly string[];
  samples: number;
  creator: LagCreator;
  log: (line: string) => void;
}

export interface SnapshotFigures {
  bytes: number;
  /** Median publish (checkpoint + copy + fsync + record) after an ingest, ms. */
  publish_ms: number;
  /** The writer's first publish at start (a freshly copied store), ms. */
  first_publish_ms: number;
  publishes: number;
  /** `cp` of the newest snapshot file, and an fsync of the copy, in the same run, ms. */
  cp_ms: number;
  fsync_ms: number;
  /** Median and largest replica switch (open the new file read-only + swap), ms. */
  switch_ms: number;
  switch_max_ms: number;
  switches: number;
}

export interface SnapshotSetup {
  logDir: string;
  sharedDir: string;
  databaseUrl: string;
  /** Process names (their log files): the writer and the replicas. */
  writer: string;
  replicas: readonly string[];
  log: (line: string) => void;
}

/** Spreads the waits evenly over the interval, the same in every run. */
const GOLDEN = 0.6180339887;

/**
 * Ingests a one-row creators file through the CLI (it reaches the writer's admin
 * channel), each time with new followers for the same creator, and times from
 * the command's return until every replica's profile answers the new value.
 * Each ingest waits a different fraction of the interval first: started right
 * after the last switch, every sample would land at the same point of the
 * publisher's timer and the lag would be that point's, not the average.
 */
export async function measureLag(setup: LagSetup, intervalS: number): Promise<LagResult> {
  const lags: number[] = [];
  const ingests: number[] = [];
  const who = setup.creator;
  const env = { CDS_DATA_DIR: setup.writerDir, CDS_DATABASE_URL: setup.databaseUrl, CDS_LOG_LEVEL: 'warn' };
  const client = new RoundRobin(setup.apis, setup.keys, 4);
  try {
    for (let i = 0; i < setup.samples; i++) {
      await sleep(((i * GOLDEN) % 1) * intervalS * 1000);
      const followers = who.followers + intervalS * 1000 + i + 1;
      const file = join(setup.run, `lag-${intervalS}-${i}.csv`);
      writeFileSync(
        file,
        `platform,handle,niche,followers,updated_at\n${who.platform},${who.handle},${who.niche},${followers},${new Date().toISOString()}\n`,
      );
      const started = performance.now();
      const r = await cds(['ingest', file, '--entity', 'creators'], env);
      if (r.code !== 0) throw new Error(`cds ingest failed (${r.code}): ${r.stderr || r.stdout}`);
      const returned = performance.now();
      ingests.push(returned - started);
      const seen = await Promise.all(
        setup.apis.map((_, k) => visibleAt(client, k, who, followers, (intervalS + 300) * 1000)),
      );
      for (const at of seen) lags.push(at - returned);
    }
  } finally {
    client.close();
  }
  const l = latency(lags);
  setup.log(
    `cluster: lag at a ${intervalS} s snapshot interval: p50 ${l.p50_ms} ms, p99 ${l.p99_ms} ms (${l.n} samples)`,
  );
  return {
    interval_s: intervalS,
    p50_ms: l.p50_ms,
    p99_ms: l.p99_ms,
    samples: l.n,
    ingest_ms: Math.round(median(ingests)),
  };
}

/** Polls replica `k`'s profile every 20 ms; answers when it first showed `followers`. */
async function visibleAt(
  client: RoundRobin,
  k: number,
  who: ProfileTarget,
  followers: number,
  timeoutMs: number,
): Promise<number> {
  const path = `/v1/creators/${encodeURIComponent(who.handle)}?platform=${who.platform}`;
  const until = performance.now() + timeoutMs;
  while (performance.now() < until) {
    const { status, body } = await client.get(path, k);
    if (status === 200 && (JSON.parse(body) as { followers: number }).followers === followers) return performance.now();
    await sleep(20);
  }
  throw new Error(`replica ${k + 1} did not show the ingested change within ${timeoutMs / 1000} s`);
}

interface LogLine {
  msg?: string;
  ms?: number;
  bytes?: number;
}

/** Publish and switch times from the processes' own log lines; `cp` of the newest snapshot in the same run. */
export async function snapshotFigures(setup: SnapshotSetup): Promise<SnapshotFigures> {
  const published = logLines(join(setup.logDir, `${setup.writer}.log`), 'snapshot published');
  const switched = setup.replicas.flatMap((name) =>
    logLines(join(setup.logDir, `${name}.log`), 'switched to a newer snapshot'),
  );
  const state = await PgState.open(setup.databaseUrl, { max: 1, applicationName: 'cds bench' });
  const latest = await latestSnapshot(state).finally(() => state.close());
  if (!latest || published.length === 0) throw new Error('the writer published no snapshot');
  const file = join(setup.sharedDir, 'snapshots', latest.file);
  const copy = join(setup.sharedDir, 'cp-probe.duckdb');
  const t0 = performance.now();
  await run('cp', [file, copy]);
  const t1 = performance.now();
  const fd = openSync(copy, 'r');
  fsyncSync(fd);
  closeSync(fd);
  const t2 = performance.now();
  rmSync(copy, { force: true });
  const later = published.slice(1).map((l) => l.ms ?? 0);
  const switches = switched.map((l) => l.ms ?? 0);
  setup.log(
    `cluster: ${published.length} publishes (first ${published[0]?.ms} ms), cp ${Math.round(t1 - t0)} ms + fsync ${Math.round(t2 - t1)} ms`,
  );
  return {
    bytes: statSync(file).size,
    publish_ms: later.length > 0 ? median(later) : (published[0]?.ms ?? 0),
    first_publish_ms: published[0]?.ms ?? 0,
    publishes: published.length,
    cp_ms: Math.round(t1 - t0),
    fsync_ms: Math.round(t2 - t1),
    switch_ms: switches.length > 0 ? median(switches) : 0,
    switch_max_ms: Math.max(0, ...switches),
    switches: switches.length,
  };
}

/** The JSON log lines of a process with message `msg`. */
function logLines(path: string, msg: string): LogLine[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.includes(msg))
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as LogLine];
      } catch {
        return [];
      }
    });
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolveRun() : reject(new Error(`${command} exited ${code}`))));
  });
}
