// `npm run drill:faults` — fault drills against `cds start` on loopback:
// kill -9 during an ingest, an export and webhook deliveries, then restart and
// check the store and the jobs; a webhook receiver down for the first retries;
// a full disk (a small tmpfs over the exports folder; needs root) during an
// export and under `cds seed`; corrupted inbox files. Prints PASS/FAIL lines, exits 1 on any FAIL.
// Flags: --big N (rows of the big ingest file, 300000) --keep --record --no-disk
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { Store } from '../data/store.js';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import {
  call,
  cds,
  createKey,
  eventually,
  startServiceProcess,
  type ServiceProcess,
  setUpDrill,
} from '../test/helpers/drill-kit.js';
import { creatorCount, writeCreatorsCsv } from './drill-faults-data.js';
import {
  corruptedInbox,
  killDuringDelivery,
  killDuringExport,
  killDuringIngest,
  receiverDownThenUp,
  settleExport,
  type FaultContext,
} from './drill-faults-scenarios.js';
import { drillArgs, finishDrill } from './drill-record.js';

const values = drillArgs({ big: { type: 'string' }, 'no-disk': { type: 'boolean' } });
const BASE = 20_000;
const BIG = Number(values.big ?? 300_000);
const DELTA = 3_000;

const { checks, dir, dataDir, env, receiver } = await setUpDrill('faults', { CDS_DEMO: '0' });
const ctx: FaultContext = { checks, env, dir, key: '', logFile: join(dir, 'service.log') };
let svc: ServiceProcess | null = null;
checks.info(
  `fault drill: base ${BASE} creators, big ingest ${BIG} rows, data in ${dir}; load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores`,
);
try {
  const files = { base: join(dir, 'creators-base.csv'), delta: join(dir, 'creators-delta.csv') };
  await writeCreatorsCsv(files.base, 1, BASE);
  await writeCreatorsCsv(files.delta, 1, DELTA, 7, '2026-11-21 00:00:00');
  svc = await startServiceProcess(env, ctx.logFile);
  // A failed key creation is a FAIL line, not the end of the drill (as every other setup step).
  let keyError = '';
  const admin = await createKey(env, 'drill-faults', 'enterprise', [
    'read',
    'verify',
    'lists:write',
    'webhooks:write',
    'exports:write',
    'admin',
  ]).catch((error: unknown) => {
    keyError = error instanceof Error ? error.message : String(error);
    return { key: '' };
  });
  ctx.key = admin.key ?? '';
  checks.check('setup: admin-scoped enterprise key created', ctx.key.startsWith('cds_'), keyError.trim().slice(0, 200));
  const t0 = Date.now();
  const base = await cds(['ingest', files.base, '--json'], env);
  const baseSeconds = (Date.now() - t0) / 1000;
  checks.check(
    'setup: base file ingested',
    base.code === 0 && (await creatorCount(svc.url, ctx.key)) === BASE,
    `${BASE} creators in ${baseSeconds.toFixed(1)} s`,
  );

  // 1. kill -9 during an ingest (each attempt a new file of new creators).
  checks.info('── kill -9 during ingest');
  const bigFile = async (attempt: number) => {
    const path = join(dir, `creators-fault-big-${attempt}.csv`);
    await writeCreatorsCsv(path, BASE + 1 + (attempt - 1) * BIG, BASE + attempt * BIG);
    return path;
  };
  svc = await killDuringIngest(
    ctx,
    svc,
    bigFile,
    BIG,
    Math.max(3000, Math.round((baseSeconds * 1000 * BIG) / BASE / 2)),
  );

  // 2. kill -9 during an export of every creator.
  checks.info('── kill -9 during an export');
  svc = await killDuringExport(ctx, svc);

  // 3. kill -9 during webhook delivery of the delta's creator.updated events; 4. receiver down, then up.
  checks.info('── kill -9 during webhook delivery');
  const delivered = await killDuringDelivery(ctx, svc, receiver, files.delta);
  svc = delivered.svc;
  checks.info('── webhook receiver down for the first retries');
  await receiverDownThenUp(ctx, svc, receiver, delivered.webhookId);

  // 5. corrupted inbox files.
  checks.info('── corrupted inbox files');
  mkdirSync(join(dataDir, 'inbox'), { recursive: true });
  await corruptedInbox(ctx, svc, BASE + 4 * BIG + 1000);
  checks.check('service healthy after the faults', (await fetch(`${svc.url}/readyz`)).ok);
  const code = await svc.stop();
  svc = null;
  checks.check('SIGTERM after the faults: clean shutdown (exit 0)', code === 0, `exit ${code}`);

  // 6. full disk during an export.
  if (values['no-disk']) checks.info('── full disk: skipped (--no-disk)');
  else {
    svc = await fullDisk(ctx);
    await fullDiskSeed();
  }
} catch (error) {
  checks.check('drill ran to the end', false, (error as Error).stack ?? String(error));
} finally {
  if (svc) await svc.stop();
  unmount(join(dataDir, 'exports'));
  unmount(join(dir, 'seed-disk'));
  await receiver.close();
  if (!values.keep) rmSync(dir, { recursive: true, force: true });
}
finishDrill(checks, {
  name: 'faults',
  command: `npm run drill:faults -- --big ${BIG}`,
  title: 'FAULT DRILLS',
  record: values.record === true,
});

/**
 * A 4 MB tmpfs over the exports folder: a full export of every creator cannot
 * fit. It must fail cleanly (no 5xx, no partial file, the service healthy), and
 * a small export must still succeed afterwards.
 */
async function fullDisk(c: FaultContext): Promise<ServiceProcess | null> {
  checks.info('── full disk during an export (4 MB tmpfs over the exports folder)');
  const exportsDir = join(dataDir, 'exports');
  renameSync(exportsDir, `${exportsDir}-before`);
  mkdirSync(exportsDir, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', exportsDir], { stdio: 'pipe' });
  } catch (error) {
    checks.check('full disk: tmpfs mounted (needs root)', false, (error as Error).message.split('\n')[0]);
    return null;
  }
  // A floor under the tmpfs's 4 MB, so the big export starts and meets the full disk while it writes (the default floor refuses it up front).
  const s = await startServiceProcess({ ...c.env, CDS_EXPORT_MIN_FREE_MB: '1' }, c.logFile);
  const big = await call(s.url, c.key, 'POST', '/v1/exports', { source: 'search', filters: {}, format: 'csv' });
  const bigId = (big.body as { id?: string } | null)?.id ?? '';
  const state = await settleExport(s.url, c.key, bigId, 180_000);
  checks.check(
    'full disk: the export failed cleanly with a reason',
    state['status'] === 'failed' && typeof state['error'] === 'string',
    `${String(state['status'])}: ${String(state['error'] ?? '').slice(0, 160)}`,
  );
  const left = readdirSync(exportsDir);
  checks.check(
    'full disk: nothing partial left on the full volume',
    left.every((f) => !f.endsWith('.part')),
    left.join(', ') || 'empty',
  );
  const dl = await call(s.url, c.key, 'GET', `/v1/exports/${bigId}/download`);
  checks.check(
    'full disk: downloading the failed export is a 4xx problem, not a 5xx',
    dl.status >= 400 && dl.status < 500,
    `${dl.status}`,
  );
  const small = await call(s.url, c.key, 'POST', '/v1/exports', {
    source: 'search',
    filters: { followers_min: '1990000' },
    format: 'csv',
  });
  const smallState = await settleExport(s.url, c.key, (small.body as { id?: string } | null)?.id ?? '', 120_000);
  checks.check(
    'full disk: once space is free again, a small export succeeds',
    smallState['status'] === 'succeeded',
    `${String(smallState['status'])}, ${String(smallState['row_count'] ?? '')} rows`,
  );
  checks.check('full disk: service healthy', (await fetch(`${s.url}/readyz`)).ok);
  const code = await s.stop();
  checks.check('full disk: clean shutdown (exit 0)', code === 0, `exit ${code}`);
  return null;
}

/**
 * `cds seed` on a small tmpfs (no server; the CLI opens the store itself): a
 * seed the disk cannot hold is refused before anything is written; a disk that
 * fills up while the seed runs (a filler file written once the store grows)
 * fails it with one line, and the store is left as before — no creators, no
 * unfinished seed; with the space back, the same store seeds.
 */
async function fullDiskSeed(): Promise<void> {
  checks.info('── full disk during cds seed (tmpfs as the data folder)');
  const seedDir = join(dir, 'seed-disk');
  mkdirSync(seedDir, { recursive: true });
  const mount = (size: string): boolean => {
    unmount(seedDir);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', seedDir], { stdio: 'pipe' });
      return true;
    } catch (error) {
      checks.check('seed full disk: tmpfs mounted (needs root)', false, (error as Error).message.split('\n')[0]);
      return false;
    }
  };
  const seedEnv = { ...env, CDS_DATA_DIR: seedDir };
  const dbPath = join(seedDir, 'cds.duckdb');
  // The `store: … (opened by this command)` header every locally run command prints is not part of the error.
  const oneLine = (text: string): boolean =>
    text
      .trim()
      .split('\n')
      .filter((l) => !l.startsWith('store: ')).length === 1;
  if (!mount('160m')) return;
  const refused = await cds(['seed', '--creators', '200000'], seedEnv);
  checks.check(
    'seed full disk: a seed the disk cannot hold is refused up front, in one line',
    refused.code === 1 && oneLine(refused.stderr) && /not enough disk space/.test(refused.stderr),
    refused.stderr.trim(),
  );
  checks.check(
    'seed full disk: after the refusal the store has no creators',
    (await storeCounts(dbPath)).creators === 0,
  );

  if (!mount('700m')) return;
  const running = cds(['seed', '--creators', '200000'], seedEnv);
  await eventually(async () => fileSize(dbPath) > 40e6, 120_000, 100);
  fillDisk(join(seedDir, 'filler'));
  const failed = await running;
  checks.check(
    'seed full disk: a disk filling up mid-seed fails it with one line and a non-zero exit',
    failed.code === 1 && oneLine(failed.stderr) && /disk is full/.test(failed.stderr),
    failed.stderr.trim().slice(0, 200),
  );
  rmSync(join(seedDir, 'filler'), { force: true });
  const after = await storeCounts(dbPath);
  checks.check(
    'seed full disk: nothing half-written — no creators, history or unfinished seed left',
    after.creators === 0 && after.history === 0 && after.unfinished === 0,
    JSON.stringify(after),
  );
  const again = await cds(['seed', '--creators', '20000'], seedEnv);
  checks.check(
    'seed full disk: with the space back, the same store seeds',
    again.code === 0 && (await storeCounts(dbPath)).creators === 20_000,
    again.stdout.trim() || again.stderr.trim(),
  );
  unmount(seedDir);
}

async function storeCounts(path: string): Promise<{ creators: number; history: number; unfinished: number }> {
  const store = await Store.open(path, { readOnly: true });
  try {
    return (
      (await store.one<{ creators: number; history: number; unfinished: number }>(`SELECT
      (SELECT count(*) FROM creators) AS creators, (SELECT count(*) FROM follower_history) AS history,
      (SELECT count(*) FROM seed_state WHERE status = 'running') AS unfinished`)) ?? {
        creators: -1,
        history: -1,
        unfinished: -1,
      }
    );
  } finally {
    await store.close();
  }
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Writes zeros until the volume is full (ENOSPC ends it). */
function fillDisk(path: string): void {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(1 << 20);
  try {
    for (;;) writeSync(fd, chunk);
  } catch {
    /* full */
  } finally {
    closeSync(fd);
  }
}

function unmount(path: string): void {
  try {
    execFileSync('umount', [path], { stdio: 'pipe' });
  } catch {
    /* not mounted */
  }
}
