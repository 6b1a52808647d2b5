// The fault drill's scenarios. Each takes the running service, does harm, and
// answers the service to carry on with (a restarted one after a kill -9).
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import {
  call,
  type Checks,
  cds,
  eventually,
  sleep,
  startServiceProcess,
  type Receiver,
  type ServiceProcess,
} from '../test/helpers/drill-kit.js';
import { creatorCount, recentRuns, writeCorruptFiles, writeMixedCsv } from './drill-faults-data.js';

export interface FaultContext {
  checks: Checks;
  env: Record<string, string>;
  dir: string;
  key: string;
  logFile: string;
}

/** kill -9, then start again on the same data folder; answers the new process and its start-up seconds. */
export async function crashAndRestart(ctx: FaultContext, svc: ServiceProcess): Promise<ServiceProcess> {
  await svc.kill9();
  const started = Date.now();
  const next = await startServiceProcess(ctx.env, ctx.logFile);
  ctx.checks.info(`killed -9 and restarted in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return next;
}

/** Bytes of the store file and its WAL: they grow while a run writes, before it commits. */
function storeBytes(dataDir: string): number {
  const size = (p: string) => (existsSync(p) ? statSync(p).size : 0);
  return size(join(dataDir, 'cds.duckdb')) + size(join(dataDir, 'cds.duckdb.wal'));
}

/**
 * kill -9 during `cds ingest` of a big file through the running server. The
 * kill fires once the store has grown by 1 MB (the run is writing) or after
 * `maxWaitMs`; when the run had already committed, it tries again with a new
 * file and an earlier trigger, up to three times.
 */
export async function killDuringIngest(
  ctx: FaultContext,
  svc: ServiceProcess,
  makeFile: (attempt: number) => Promise<string>,
  bigRows: number,
  maxWaitMs: number,
): Promise<ServiceProcess> {
  const { checks } = ctx;
  const dataDir = ctx.env['CDS_DATA_DIR'] as string;
  let current = svc;
  for (let attempt = 1; attempt <= 3; attempt++) {
    const big = await makeFile(attempt);
    const before = await creatorCount(current.url, ctx.key);
    const size0 = storeBytes(dataDir);
    const started = Date.now();
    const ingest = cds(['ingest', big, '--json'], ctx.env);
    const growth = (1_048_576 * 2) / attempt;
    await eventually(async () => storeBytes(dataDir) - size0 > growth, maxWaitMs / attempt, 10);
    checks.info(
      `attempt ${attempt}: killing ${Date.now() - started} ms into the ingest (store grew ${((storeBytes(dataDir) - size0) / 1_048_576).toFixed(1)} MB)`,
    );
    current = await crashAndRestart(ctx, current);
    const cli = await ingest;
    checks.info(
      `cds ingest during the kill exited ${cli.code}: ${(cli.stderr || cli.stdout).trim().split('\n').at(-1)?.slice(0, 140) ?? ''}`,
    );
    const after = await creatorCount(current.url, ctx.key);
    const completed = after === before + bigRows;
    checks.check(
      'ingest killed: store consistent (all of the file or none of it)',
      after === before || completed,
      `${before} creators before, ${after} after (file has ${bigRows})${completed ? ' — the run had already committed' : ''}`,
    );
    const runs = (await recentRuns(current.url, ctx.key)).filter((r) =>
      String(r['source'] ?? '').includes(big.split('/').at(-1) ?? big),
    );
    if (!completed) {
      // the interrupted run must be visible as failed (and re-runnable), not vanish.
      checks.check(
        'ingest killed: the interrupted run is recorded as failed (cds runs / GET /v1/runs)',
        runs.some((r) => r['status'] === 'failed'),
        runs.map((r) => `${r['run_id']} ${r['status']} ${r['error'] ?? ''}`.trim()).join('; ') ||
          'no run record at all: the run row is written in the same transaction as the load, so a kill leaves no trace',
      );
    }
    if (completed) {
      checks.info(`attempt ${attempt}: the run committed before the kill; trying again with an earlier kill`);
      continue;
    }
    const again = await cds(['ingest', big, '--json'], ctx.env);
    const final = await creatorCount(current.url, ctx.key);
    checks.check(
      'ingest killed mid-run: re-running the same file succeeds and loads every row once',
      again.code === 0 && final === before + bigRows,
      `exit ${again.code}, ${final} creators (expected ${before + bigRows})`,
    );
    return current;
  }
  checks.check(
    'ingest killed mid-run (the kill landed before the commit in one of 3 attempts)',
    false,
    'every run committed before the kill',
  );
  return current;
}

async function exportStatus(url: string, key: string, id: string): Promise<Record<string, unknown>> {
  return ((await call(url, key, 'GET', `/v1/exports/${id}`)).body ?? {}) as Record<string, unknown>;
}

/** Waits for an export to leave queued/running; answers its last state. */
export async function settleExport(url: string, key: string, id: string, ms: number): Promise<Record<string, unknown>> {
  let last: Record<string, unknown> = {};
  await eventually(
    async () => {
      last = await exportStatus(url, key, id);
      return last['status'] !== 'queued' && last['status'] !== 'running';
    },
    ms,
    250,
  );
  return last;
}

/** kill -9 while an export runs; after restart it must finish (re-queued) or fail cleanly, with no partial file left. */
export async function killDuringExport(ctx: FaultContext, svc: ServiceProcess): Promise<ServiceProcess> {
  const { checks } = ctx;
  const created = await call(svc.url, ctx.key, 'POST', '/v1/exports', {
    source: 'search',
    filters: {},
    format: 'json',
  });
  const id = (created.body as { id?: string } | null)?.id ?? '';
  checks.check('export accepted (202)', created.status === 202 && id !== '', `${created.status}`);
  const running = await eventually(
    async () => (await exportStatus(svc.url, ctx.key, id))['status'] === 'running',
    60_000,
    50,
  );
  await sleep(150);
  const wasRunning = (await exportStatus(svc.url, ctx.key, id))['status'];
  checks.info(
    `export ${id} ${running ? 'was running' : 'never seen running'}; status at the kill: ${String(wasRunning)}`,
  );
  const next = await crashAndRestart(ctx, svc);
  const state = await settleExport(next.url, ctx.key, id, 180_000);
  const exportsDir = join(ctx.env['CDS_DATA_DIR'] as string, 'exports');
  const leftovers = existsSync(exportsDir) ? readdirSync(exportsDir).filter((f) => f.endsWith('.part')) : [];
  if (state['status'] === 'succeeded') {
    const res = await fetch(`${next.url}/v1/exports/${id}/download`, {
      headers: { authorization: `Bearer ${ctx.key}` },
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    const sha = createHash('sha256').update(bytes).digest('hex');
    checks.check(
      'export killed: resumed after restart and the file is whole (sha256 and size match)',
      res.status === 200 && sha === state['sha256'] && bytes.length === state['bytes'],
      `${bytes.length} bytes, ${state['row_count']} rows`,
    );
  } else {
    checks.check(
      'export killed: failed cleanly with a reason',
      state['status'] === 'failed' && typeof state['error'] === 'string',
      JSON.stringify(state).slice(0, 200),
    );
  }
  checks.check('export killed: no partial (.part) file left behind', leftovers.length === 0, leftovers.join(', '));
  return next;
}

/** kill -9 while webhook deliveries are in flight; after restart every event reaches the receiver at least once. */
export async function killDuringDelivery(
  ctx: FaultContext,
  svc: ServiceProcess,
  receiver: Receiver,
  delta: string,
): Promise<{ svc: ServiceProcess; webhookId: string }> {
  const { checks } = ctx;
  const hook = await call(svc.url, ctx.key, 'POST', '/v1/webhooks', {
    url: receiver.url,
    events: ['creator.updated'],
    description: 'fault drill',
  });
  const webhookId = (hook.body as { id?: string } | null)?.id ?? '';
  checks.check('webhook subscription created', hook.status === 201, `${hook.status} ${webhookId}`);
  const ingest = await cds(['ingest', delta, '--json'], ctx.env);
  const outcome = JSON.parse(ingest.stdout.trim().split('\n').at(-1) ?? '[]') as Array<{
    runs: Array<{ events_emitted: number; rows_changed: number }>;
  }>;
  const events = outcome.flatMap((o) => o.runs).reduce((a, r) => a + r.events_emitted, 0);
  checks.check('delta ingested, creator.updated events emitted', ingest.code === 0 && events > 0, `${events} events`);
  const started = await eventually(async () => receiver.byId.size >= Math.min(50, events), 60_000, 20);
  const before = receiver.byId.size;
  checks.info(
    `killing with ${before} of ${events} deliveries received${started ? '' : ' (deliveries had not started)'}`,
  );
  const next = await crashAndRestart(ctx, svc);
  const all = await eventually(async () => receiver.byId.size >= events, 240_000, 500);
  const dupes = [...receiver.byId.values()].filter((n) => n > 1).length;
  checks.check(
    'delivery killed: every event delivered at least once after restart',
    all && receiver.byId.size >= events,
    `${receiver.byId.size} distinct deliveries of ${events} events; ${dupes} received more than once (at-least-once)`,
  );
  return { svc: next, webhookId };
}

/** The receiver answers 503 for the first attempts, then comes back: the delivery succeeds on a retry. */
export async function receiverDownThenUp(
  ctx: FaultContext,
  svc: ServiceProcess,
  receiver: Receiver,
  webhookId: string,
): Promise<void> {
  const { checks } = ctx;
  receiver.down = true;
  receiver.refused = 0;
  const test = await call(svc.url, ctx.key, 'POST', `/v1/webhooks/${webhookId}/test`);
  const deliveryId = (test.body as { delivery_id?: string } | null)?.delivery_id ?? '';
  checks.check('test event queued', test.status >= 200 && test.status < 300, `${test.status} ${deliveryId}`);
  const refused = await eventually(async () => receiver.refused >= 3, 90_000, 100);
  checks.info(`receiver refused ${receiver.refused} attempt(s) with 503; bringing it up`);
  receiver.down = false;
  const got = await eventually(async () => [...receiver.types.values()].includes('webhook.test'), 120_000, 250);
  // The delivery log is written just after the receiver answers: wait for it to say so.
  let entry: Record<string, unknown> | undefined;
  await eventually(
    async () => {
      const log =
        (
          (await call(svc.url, ctx.key, 'GET', `/v1/webhooks/${webhookId}/deliveries?limit=100`)).body as {
            data?: Array<Record<string, unknown>>;
          } | null
        )?.data ?? [];
      entry = log.find((d) => d['id'] === deliveryId || d['delivery_id'] === deliveryId);
      return entry?.['status'] === 'succeeded';
    },
    15_000,
    250,
  );
  checks.check(
    'receiver down for the first retries, then up: delivered on a retry, the log says succeeded after the failed attempts',
    refused && got && entry?.['status'] === 'succeeded' && Number(entry['attempts_made'] ?? 0) > receiver.refused - 1,
    `${receiver.refused} refusals; log: ${JSON.stringify(entry ?? null).slice(0, 220)}`,
  );
}

/** Corrupted and half-bad inbox files: the bad ones are set aside with a reason, bad rows quarantined, the watcher keeps going. */
export async function corruptedInbox(ctx: FaultContext, svc: ServiceProcess, nextFrom: number): Promise<void> {
  const { checks } = ctx;
  const inbox = join(ctx.env['CDS_DATA_DIR'] as string, 'inbox');
  const before = await creatorCount(svc.url, ctx.key);
  writeCorruptFiles(join(inbox, 'creators-fault-corrupt.csv'), join(inbox, 'creators-fault-corrupt.parquet'));
  const bad = writeMixedCsv(join(inbox, 'creators-fault-mixed.csv'), nextFrom, 100);
  const drained = await eventually(
    async () => readdirSync(inbox).filter((f) => f.startsWith('creators-fault')).length === 0,
    120_000,
    500,
  );
  const failedDir = join(inbox, 'failed');
  const setAside = existsSync(failedDir) ? readdirSync(failedDir) : [];
  const reasons = setAside
    .filter((f) => f.endsWith('.reason.txt'))
    .map((f) => readFileSync(join(failedDir, f), 'utf8').trim().split('\n')[0]?.slice(0, 100));
  checks.check(
    'corrupted inbox files: set aside in failed/ with a reason, the watcher carries on',
    drained && setAside.some((f) => f.includes('corrupt.csv')) && setAside.some((f) => f.includes('corrupt.parquet')),
    `failed/: ${setAside.join(', ')}; reasons: ${reasons.join(' | ')}`,
  );
  const corruptRuns = (await recentRuns(svc.url, ctx.key, 50)).filter((r) =>
    String(r['source'] ?? '').includes('fault-corrupt'),
  );
  checks.check(
    'corrupted inbox files: their runs are recorded as failed with the reason',
    corruptRuns.length >= 2 && corruptRuns.every((r) => r['status'] === 'failed' && r['error']),
    corruptRuns.map((r) => `${r['source']} ${r['status']}: ${String(r['error'] ?? '').slice(0, 80)}`).join(' | '),
  );
  const after = await creatorCount(svc.url, ctx.key);
  const runs = (await recentRuns(svc.url, ctx.key)).filter((r) => String(r['source'] ?? '').includes('fault-mixed'));
  const rejected = runs.reduce((a, r) => a + Number(r['rows_rejected'] ?? 0), 0);
  checks.check(
    'half-bad file: good rows loaded, bad rows quarantined, nothing of the corrupt files loaded',
    after === before + 100 - bad && rejected === bad,
    `${after - before} loaded of 100, ${rejected} quarantined (expected ${bad})`,
  );
  writeFileSync(join(ctx.dir, 'inbox-after.txt'), readdirSync(inbox).join('\n'));
}
