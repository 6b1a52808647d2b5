// Export bench (issue 7): a full-store export per format, timed against DuckDB's own
// `COPY (same query) TO …` in the same run, each measurement in its own child process
// so its peak RSS is its own.
//
//   node bin/run-ts.mjs bench/export.bench.ts [creators=1000000] [dir] [runs=3] [formats=json,ndjson,csv,parquet,arrow]
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pino from 'pino';
import { bundle } from '../bin/bundle.mjs';
import { testConfig } from '../config/config.js';
import { copyStatement } from '../connectors/exports/export.writer.js';
import { resolveFields } from '../connectors/exports/export-fields.js';
import { exportCountSql, exportQuerySql } from '../connectors/exports/export-source.js';
import {
  createExport,
  createExportWorker,
  EXPORT_FORMATS,
  exportFileName,
  getExport,
  type ExportFormat,
} from '../connectors/exports/index.js';
import { ensureDemoAccount } from '../data/seed/demo-account.js';
import { seedDemoData } from '../data/seed/demo-generator.js';
import { Store } from '../data/store.js';
import { openBenchStore } from './bench-store.js';
import { maxRssMb, median } from './stats.js';
import { PlanCatalogue } from '../data/plans/plan.service.js';

/** One format's figures: our export job against DuckDB's own COPY of the same query, in the same run. */
export interface ExportBenchRow {
  format: ExportFormat;
  rows: number;
  bytes: number;
  /** Median seconds of the export job (write, hash, rename, publish with its event). */
  export_s: number;
  /** Median seconds of `COPY (same query) TO …` with the same options; null for Arrow (DuckDB has no IPC writer). */
  copy_s: number | null;
  /** copy_s / export_s: 1.0 is as fast as DuckDB alone; the target is ≥ 0.8 for Parquet and CSV. */
  ratio: number | null;
  /** Median CPU seconds (all threads) of the export and of the COPY: steadier than wall time on a shared machine. */
  export_cpu_s: number;
  copy_cpu_s: number | null;
  /** copy_cpu_s / export_cpu_s. */
  cpu_ratio: number | null;
  /** Peak RSS of the process that ran the export, MB (target < 300); includes Node, tsx and the open store. */
  peak_rss_mb: number;
  /** Peak RSS of the process that ran DuckDB's COPY alone, MB, for comparison. */
  copy_peak_rss_mb: number | null;
  /** RSS right after opening the store, before any work, MB. */
  idle_rss_mb: number;
  /** DuckDB's memory limit on both sides (CDS_DUCKDB_MEMORY_LIMIT of an exports process). */
  memory_limit: string;
}

export interface ExportBenchOptions {
  /** Creators in the bench store (default 1,000,000). */
  creators?: number;
  /** Folder for the bench store and files; reused when it already holds a store of that size. */
  dir?: string;
  runs?: number;
  formats?: readonly ExportFormat[];
  /**
   * DuckDB's memory limit (CDS_DUCKDB_MEMORY_LIMIT in the service), the same for both sides.
   * Default 96MB, what docs/scaling.md gives an exports process: left alone, DuckDB grows its buffer cache towards most of the
   * machine's RAM, and the process's peak is about its idle size plus this limit plus 30-50 MB.
   */
  memoryLimit?: string;
  /**
   * Measure each run in its own child process (its peak RSS is then its own). Default: from
   * 100,000 creators up; toy sizes (the bench smoke test) measure in this process.
   */
  childProcesses?: boolean;
  log?: (line: string) => void;
}

interface Measurement {
  seconds: number;
  cpu_s: number;
  rows: number;
  bytes: number;
  maxrss_mb: number;
  idle_rss_mb: number;
}

const BASE_CREATORS = 10_000;
/**
 * Measured as an exports process is configured (README, cluster mode): one DuckDB thread, a small
 * memory limit and no insertion order (every export query orders its rows) — what bounds a big
 * COPY's memory. The COPY it is compared with runs under the same settings.
 */
const THREADS = 1;
const EXPORT_MEMORY_LIMIT = '96MB';
const run = promisify(execFile);

/**
 * Times a full-store export (default fields, a search with no filters, sorted by
 * followers) per format against DuckDB's own COPY of the identical query; medians of `runs`.
 */
export async function runExportBench(options: ExportBenchOptions = {}): Promise<ExportBenchRow[]> {
  const creators = options.creators ?? 1_000_000;
  const dir = resolve(options.dir ?? join(tmpdir(), `cds-bench-export-${creators}`));
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const memoryLimit = options.memoryLimit ?? EXPORT_MEMORY_LIMIT;
  // the store is built with DuckDB's defaults (the exports settings are for reading it)
  const seeding = await openBenchStore(testConfig(dir).dbPath);
  try {
    await ensureBenchStore(seeding, creators, log);
  } finally {
    await seeding.close();
  }
  const inChild = options.childProcesses ?? creators >= 100_000;
  const measureOne = (task: ChildTask): Promise<Measurement> => (inChild ? measureInChild(task) : measure(task));
  const results: ExportBenchRow[] = [];
  for (const format of options.formats ?? EXPORT_FORMATS) {
    const ours: Measurement[] = [];
    const copies: Measurement[] = [];
    for (let i = 0; i < (options.runs ?? 3); i++) {
      // alternate which side goes first, so neither always inherits the other's page cache and writeback
      const copyFirst = i % 2 === 1 && format !== 'arrow';
      if (copyFirst) copies.push(await measureOne({ mode: 'copy', format, dir, memoryLimit }));
      ours.push(await measureOne({ mode: 'export', format, dir, memoryLimit }));
      if (!copyFirst && format !== 'arrow') copies.push(await measureOne({ mode: 'copy', format, dir, memoryLimit }));
      log(`  ${format} run ${i + 1}: export ${describeRun(ours.at(-1))}, COPY ${describeRun(copies.at(-1))}`);
    }
    results.push({ ...summarise(format, ours, copies), memory_limit: memoryLimit });
    log(formatRow(results[results.length - 1] as ExportBenchRow));
  }
  return results;
}

function summarise(
  format: ExportFormat,
  ours: Measurement[],
  copies: Measurement[],
): Omit<ExportBenchRow, 'memory_limit'> {
  const exportS = median(ours.map((m) => m.seconds));
  const copyS = copies.length > 0 ? median(copies.map((m) => m.seconds)) : null;
  const exportCpu = median(ours.map((m) => m.cpu_s));
  const copyCpu = copies.length > 0 ? median(copies.map((m) => m.cpu_s)) : null;
  return {
    format,
    rows: ours[0]?.rows ?? 0,
    bytes: ours[0]?.bytes ?? 0,
    export_s: exportS,
    copy_s: copyS,
    ratio: copyS === null ? null : copyS / exportS,
    export_cpu_s: exportCpu,
    copy_cpu_s: copyCpu,
    cpu_ratio: copyCpu === null ? null : copyCpu / exportCpu,
    peak_rss_mb: Math.max(...ours.map((m) => m.maxrss_mb)),
    copy_peak_rss_mb: copies.length > 0 ? Math.max(...copies.map((m) => m.maxrss_mb)) : null,
    idle_rss_mb: Math.max(...ours.map((m) => m.idle_rss_mb)),
  };
}

interface ChildTask {
  mode: 'export' | 'copy';
  format: ExportFormat;
  dir: string;
  memoryLimit: string;
}

/**
 * Runs one measurement in a child process built the way the service runs (bin/cds.mjs runs the
 * esbuild bundle, not tsx): this file bundled by the same builder, started with plain `node`.
 */
async function measureInChild(task: ChildTask): Promise<Measurement> {
  const root = resolve(import.meta.dirname, '..');
  const entry = await bundle('bench/export.bench.ts', join(root, 'bench/work/export-bench.mjs'), ['bench']);
  const { stdout } = await run(process.execPath, [entry, '--measure', JSON.stringify(task)], {
    cwd: root,
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Measurement;
}

/** One measurement, in this (child) process: the export job through the worker, or the bare COPY. */
async function measure(task: ChildTask): Promise<Measurement> {
  return withStore(task.dir, task.memoryLimit, async (store, config) => {
    const accountId = (await ensureDemoAccount(store)).account_id;
    const idle = Math.round(process.memoryUsage.rss() / 1_048_576);
    if (task.mode === 'copy')
      return {
        ...(await timeCopy(store, config.exportsDir, accountId, task.format as Exclude<ExportFormat, 'arrow'>)),
        idle_rss_mb: idle,
      };
    const worker = createExportWorker({ store, state: store, config, logger: pino({ level: 'silent' }) });
    const job = await createExport(
      store,
      store,
      new PlanCatalogue(store),
      { accountId, plan: 'enterprise' },
      { source: 'search', filters: {}, format: task.format },
    );
    const started = performance.now();
    const cpu = process.cpuUsage();
    await worker.runNext();
    const cpuS = cpuSeconds(cpu);
    const seconds = (performance.now() - started) / 1000;
    const done = await getExport(store, accountId, job.id);
    if (done.status !== 'succeeded') throw new Error(`bench export ${task.format} ${done.status}: ${done.error ?? ''}`);
    rmSync(join(config.exportsDir, exportFileName(job.id, task.format)), { force: true });
    return {
      seconds,
      cpu_s: cpuS,
      rows: done.row_count ?? 0,
      bytes: done.bytes ?? 0,
      maxrss_mb: maxRssMb(),
      idle_rss_mb: idle,
    };
  });
}

async function timeCopy(
  store: Store,
  dir: string,
  accountId: string,
  format: Exclude<ExportFormat, 'arrow'>,
): Promise<Omit<Measurement, 'idle_rss_mb'>> {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `bench-copy.${format}`);
  const query = exportQuerySql({ type: 'search', filters: {} }, accountId, resolveFields('search', undefined), format);
  const copy = copyStatement(query, format, path);
  // the export job's side counts its rows first (the plan-cap check), warming the same data: so does this side
  const count = exportCountSql({ type: 'search', filters: {} }, accountId);
  await store.one(count.sql, count.params);
  const started = performance.now();
  const cpu = process.cpuUsage();
  const rows = await store.run(copy.sql, copy.params);
  const cpuS = cpuSeconds(cpu);
  const seconds = (performance.now() - started) / 1000;
  rmSync(path, { force: true });
  return { seconds, cpu_s: cpuS, rows, bytes: 0, maxrss_mb: maxRssMb() };
}

async function withStore<T>(
  dir: string,
  memoryLimit: string,
  fn: (store: Store, config: ReturnType<typeof testConfig>) => Promise<T>,
): Promise<T> {
  const config = testConfig(dir, {
    CDS_DUCKDB_THREADS: String(THREADS),
    CDS_DUCKDB_MEMORY_LIMIT: memoryLimit,
    CDS_DUCKDB_PRESERVE_INSERTION_ORDER: '0',
  });
  const store = await Store.open(config.dbPath, { ...config.duckdb });
  try {
    return await fn(store, config);
  } finally {
    await store.close();
  }
}

/**
 * A bench store of `creators` rows: the demo generator seeds 10,000 creators with
 * their audiences, then set-based SQL copies them under new ids and handles, with
 * follower counts and engagement varied per copy so the data does not compress
 * or sort as 100 identical blocks. Reused when it already has that size.
 */
async function ensureBenchStore(store: Store, creators: number, log: (line: string) => void): Promise<void> {
  const account = await ensureDemoAccount(store);
  const have = (await store.one<{ n: number }>('SELECT count(*) AS n FROM creators'))?.n ?? 0;
  if (have === creators) return;
  if (have !== 0) throw new Error(`the bench store holds ${have} creators, not ${creators}; remove its folder`);
  const base = Math.min(BASE_CREATORS, creators);
  const started = performance.now();
  await seedDemoData(store, { creators: base, seed: 42, asOf: '2026-11-21', demoAccountId: account.account_id });
  const copies = Math.ceil(creators / base);
  await store.transaction(async (tx) => {
    await tx.run(
      `INSERT INTO creators SELECT c.* REPLACE (
        c.creator_id + k * ? AS creator_id, c.handle || '_' || k AS handle,
        greatest(1, round(c.followers * (0.5 + (hash(c.creator_id, k) % 1000) / 1000.0)))::BIGINT AS followers,
        c.engagement_rate * (0.8 + (hash(k, c.creator_id) % 400) / 1000.0) AS engagement_rate)
      FROM creators c, range(1, ?) r(k) WHERE c.creator_id + k * ? <= ?`,
      [base, copies, base, creators],
    );
    await tx.run(
      `INSERT INTO audience SELECT a.* REPLACE (a.creator_id + k * ? AS creator_id, a.pct * (0.9 + (hash(a.creator_id, a.key, k) % 200) / 1000.0) AS pct)
      FROM audience a, range(1, ?) r(k) WHERE a.creator_id + k * ? <= ?`,
      [base, copies, base, creators],
    );
  });
  await store.run('CHECKPOINT');
  log(`bench store: ${creators} creators built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** CPU seconds (user + system, every thread of the process) since `since`. */
function cpuSeconds(since: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1e6;
}

function describeRun(m: Measurement | undefined): string {
  return m ? `${m.seconds.toFixed(2)} s (CPU ${m.cpu_s.toFixed(1)} s, peak RSS ${m.maxrss_mb} MB)` : '-';
}

function formatRow(r: ExportBenchRow): string {
  const ratio = r.ratio === null ? 'n/a (no DuckDB writer)' : `${r.ratio.toFixed(2)}x`;
  return (
    `export ${r.format.padEnd(7)} ${r.rows} rows ${(r.bytes / 1_048_576).toFixed(1)} MB: ${r.export_s.toFixed(2)} s` +
    ` vs COPY ${r.copy_s === null ? '-' : `${r.copy_s.toFixed(2)} s`} → ${ratio}` +
    ` (CPU ${r.export_cpu_s.toFixed(1)} s vs ${r.copy_cpu_s === null ? '-' : `${r.copy_cpu_s.toFixed(1)} s`}); peak RSS ${r.peak_rss_mb} MB` +
    ` (COPY alone ${r.copy_peak_rss_mb ?? '-'} MB, idle ${r.idle_rss_mb} MB)`
  );
}

const entry = process.argv[1] ? resolve(process.argv[1]) : '';
// run as a script: this file through tsx, or its bundle (measureInChild)
if (entry === resolve(import.meta.dirname, 'export.bench.ts') || entry === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === '--measure') {
    process.stdout.write(`${JSON.stringify(await measure(JSON.parse(process.argv[3] ?? '{}') as ChildTask))}\n`);
  } else {
    const creators = Number(process.argv[2] ?? 1_000_000);
    const runs = process.argv[4] ? Number(process.argv[4]) : undefined;
    const formats = process.argv[5] ? (process.argv[5].split(',') as ExportFormat[]) : undefined;
    const results = await runExportBench({ creators, dir: process.argv[3], runs, formats });
    process.stdout.write(`${JSON.stringify(results)}\n`);
    const slow = results.filter((r) => (r.format === 'parquet' || r.format === 'csv') && (r.ratio ?? 0) < 0.8);
    if (slow.length > 0 || results.some((r) => r.peak_rss_mb >= 300)) process.exitCode = 1;
  }
}
