import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { testConfig } from '../config/config.js';
import { copyStatement } from '../connectors/exports/export.writer.js';
import { resolveFields } from '../connectors/exports/export-fields.js';
import { exportQuerySql } from '../connectors/exports/export-source.js';
import { createExport, createExportWorker, EXPORT_FORMATS, getExport, type ExportFormat } from '../connectors/exports/index.js';
import { ensureDemoAccount } from '../data/seed/demo-account.js';
import { seedDemoData } from '../data/seed/demo-generator.js';
import { Store } from '../data/store.js';

/** One format's figures: our export job against DuckDB's own COPY of the same query, in the same run. */
export interface ExportBenchRow {
  format: ExportFormat;
  rows: number;
  bytes: number;
  /** Median seconds of the export job (write, hash, rename, publish). */
  export_s: number;
  /** Median seconds of `COPY (same query) TO …` with the same options; null for Arrow (DuckDB has no IPC writer). */
  copy_s: number | null;
  /** copy_s / export_s: 1.0 means as fast as DuckDB alone; the target is ≥ 0.8 for Parquet and CSV. */
  ratio: number | null;
  /** Peak resident set size sampled while the export ran, MB (target < 300). */
  peak_rss_mb: number;
}

export interface ExportBenchOptions {
  /** Creators in the bench store (default 1,000,000). */
  creators?: number;
  /** Folder for the bench store and files; reused between runs when it already holds a store of that size. */
  dir?: string;
  runs?: number;
  formats?: readonly ExportFormat[];
  log?: (line: string) => void;
}

const BASE_CREATORS = 10_000;

/**
 * Times a full-store export (default fields, search source with no filters) per
 * format against DuckDB's own COPY of the identical query, median of `runs`.
 */
export async function runExportBench(options: ExportBenchOptions = {}): Promise<ExportBenchRow[]> {
  const creators = options.creators ?? 1_000_000;
  const dir = resolve(options.dir ?? join(tmpdir(), `cds-bench-export-${creators}`));
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const config = testConfig(dir, { CDS_DUCKDB_THREADS: '2' });
  const store = await Store.open(config.dbPath, { threads: 2 });
  try {
    const accountId = await ensureBenchStore(store, creators, log);
    const results: ExportBenchRow[] = [];
    for (const format of options.formats ?? EXPORT_FORMATS) {
      results.push(await benchFormat(store, config, accountId, format, options.runs ?? 3));
      log(formatRow(results[results.length - 1] as ExportBenchRow));
    }
    return results;
  } finally {
    await store.close();
  }
}

async function benchFormat(store: Store, config: ReturnType<typeof testConfig>, accountId: string, format: ExportFormat, runs: number): Promise<ExportBenchRow> {
  const caller = { accountId, plan: 'enterprise' as const };
  const worker = createExportWorker({ store, config, logger: pino({ level: 'silent' }) });
  const exportTimes: number[] = [];
  const copyTimes: number[] = [];
  let peak = 0;
  let rows = 0;
  let bytes = 0;
  for (let i = 0; i < runs; i++) {
    const job = await createExport(store, config, caller, { source: 'search', filters: {}, format });
    const sampler = rssSampler();
    const started = performance.now();
    await worker.runNext();
    exportTimes.push((performance.now() - started) / 1000);
    peak = Math.max(peak, sampler.stop());
    const done = await getExport(store, accountId, job.id);
    if (done.status !== 'succeeded') throw new Error(`bench export ${format} ${done.status}: ${done.error ?? ''}`);
    rows = done.row_count ?? 0;
    bytes = done.bytes ?? 0;
    rmSync(join(config.exportsDir, `${job.id}.${format === 'arrow' ? 'arrows' : format}`), { force: true });
    if (format !== 'arrow') copyTimes.push(await timeCopy(store, config.exportsDir, accountId, format));
  }
  const exportS = median(exportTimes);
  const copyS = format === 'arrow' ? null : median(copyTimes);
  return { format, rows, bytes, export_s: exportS, copy_s: copyS, ratio: copyS === null ? null : copyS / exportS, peak_rss_mb: peak };
}

async function timeCopy(store: Store, dir: string, accountId: string, format: Exclude<ExportFormat, 'arrow'>): Promise<number> {
  const path = join(dir, `bench-copy.${format}`);
  const query = exportQuerySql({ type: 'search', filters: {} }, accountId, resolveFields('search', undefined), format);
  const copy = copyStatement(query, format, path);
  const started = performance.now();
  await store.run(copy.sql, copy.params);
  const seconds = (performance.now() - started) / 1000;
  rmSync(path, { force: true });
  return seconds;
}

/**
 * A bench store of `creators` rows: the demo generator seeds 10,000 creators
 * (with their audiences), then set-based SQL copies them under new ids and
 * handles until the count is reached. Reused when it already has that size.
 */
async function ensureBenchStore(store: Store, creators: number, log: (line: string) => void): Promise<string> {
  const account = await ensureDemoAccount(store);
  const have = (await store.one<{ n: number }>('SELECT count(*) AS n FROM creators'))?.n ?? 0;
  if (have === creators) return account.account_id;
  if (have !== 0) throw new Error(`the bench store holds ${have} creators, not ${creators}; remove its folder`);
  const base = Math.min(BASE_CREATORS, creators);
  const started = performance.now();
  await seedDemoData(store, { creators: base, seed: 42, asOf: '2026-11-21', demoAccountId: account.account_id });
  const copies = Math.ceil(creators / base);
  await store.transaction(async (tx) => {
    await tx.run(`INSERT INTO creators SELECT c.* REPLACE (c.creator_id + k * ? AS creator_id, c.handle || '_' || k AS handle)
      FROM creators c, range(1, ?) r(k) WHERE c.creator_id + k * ? <= ?`, [base, copies, base, creators]);
    await tx.run(`INSERT INTO audience SELECT a.* REPLACE (a.creator_id + k * ? AS creator_id)
      FROM audience a, range(1, ?) r(k) WHERE a.creator_id + k * ? <= ?`, [base, copies, base, creators]);
  });
  await store.run('CHECKPOINT');
  log(`bench store: ${creators} creators built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return account.account_id;
}

function rssSampler(): { stop: () => number } {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 20);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.round(Math.max(peak, process.memoryUsage.rss()) / 1_048_576);
    },
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function formatRow(r: ExportBenchRow): string {
  const ratio = r.ratio === null ? 'n/a (no DuckDB writer)' : `${r.ratio.toFixed(2)}x`;
  return `export ${r.format.padEnd(7)} ${r.rows} rows ${(r.bytes / 1_048_576).toFixed(1)} MB: ${r.export_s.toFixed(2)} s` +
    ` vs COPY ${r.copy_s === null ? '-' : `${r.copy_s.toFixed(2)} s`} → ${ratio}, peak RSS ${r.peak_rss_mb} MB`;
}

const isEntry = process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === import.meta.url;
if (isEntry) {
  const creators = Number(process.argv[2] ?? 1_000_000);
  const dir = process.argv[3];
  if (dir && !existsSync(dir)) mkdirSync(dir, { recursive: true });
  const results = await runExportBench({ creators, dir });
  const failed = results.filter((r) => (r.format === 'parquet' || r.format === 'csv') && (r.ratio ?? 0) < 0.8);
  process.stdout.write(`${JSON.stringify({ results, maxrss_mb: Math.round(process.resourceUsage().maxRSS / 1024) })}\n`);
  if (failed.length > 0 || results.some((r) => r.peak_rss_mb >= 300)) process.exitCode = 1;
}
