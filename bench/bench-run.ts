// Orchestrates one `npm run bench`: each section runs in its own child process
// (so its peak RSS is its own and a crash only fails that row), is repeated
// `runs` times where cheap enough, and numeric figures are reduced to medians.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  MissingBenchError,
  OPT_IN,
  runSection,
  SECTIONS,
  type SectionContext,
  type SectionName,
} from './bench-sections.js';
import { maxRssMb, median } from './stats.js';

/** One section's outcome as it goes into bench/results.json. */
export interface SectionOutcome {
  name: SectionName;
  status: 'ok' | 'failed' | 'missing' | 'skipped';
  error?: string;
  /** Median over the repeats of every numeric figure of the area's result. */
  result: unknown;
  repeats: number;
  seconds: number;
  /** Peak resident set size of the process that ran the section, MB. */
  peak_rss_mb: number | null;
  /** 1-minute load average of the machine when the section started and ended (a shared machine skews figures). */
  load_avg?: [number, number];
}

export interface BenchOptions {
  creators: number;
  runs: number;
  quick: boolean;
  smoke?: boolean;
  workDir: string;
  only?: readonly SectionName[];
  /** Run sections in this process (smoke test) instead of one child process each. */
  inProcess?: boolean;
  /** Per-section time limit for child processes, seconds. */
  timeoutSeconds?: number;
  log?: (line: string) => void;
}

/**
 * How many times a section is repeated. The seed is run once (it is the
 * heaviest and reused); the export and sync modules repeat internally; the
 * cluster section takes minutes (its lag waits for snapshot intervals) and runs once; so does
 * search-scale (three store sizes, hundreds of samples each: its percentiles are its repeats).
 */
function repeatsFor(name: SectionName, runs: number): number {
  if (
    name === 'seed' ||
    name === 'export' ||
    name === 'sync' ||
    name === 'api' ||
    name === 'verify' ||
    name === 'cluster' ||
    name === 'search-scale'
  )
    return 1;
  return runs;
}

/** Runs the selected sections in order; never throws for a section's failure. */
export async function runBench(options: BenchOptions): Promise<SectionOutcome[]> {
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  mkdirSync(options.workDir, { recursive: true });
  const outcomes: SectionOutcome[] = [];
  for (const name of SECTIONS) {
    if (options.only ? !options.only.includes(name) : OPT_IN.has(name)) continue;
    log(`── ${name}`);
    const started = performance.now();
    const outcome = options.inProcess ? await inProcess(name, options, log) : await inChild(name, options, log);
    outcome.seconds = (performance.now() - started) / 1000;
    log(
      `── ${name}: ${outcome.status}${outcome.error ? ` (${outcome.error.split('\n')[0]})` : ''} in ${outcome.seconds.toFixed(1)} s`,
    );
    outcomes.push(outcome);
  }
  return outcomes;
}

/** Runs a section's repeats in this process; used by the child and by the smoke test. */
export async function inProcess(
  name: SectionName,
  options: BenchOptions,
  log: (line: string) => void,
): Promise<SectionOutcome> {
  const ctx: SectionContext = {
    creators: options.creators,
    runs: options.runs,
    quick: options.quick,
    smoke: options.smoke,
    workDir: options.workDir,
    log,
  };
  const repeats = repeatsFor(name, options.runs);
  const results: unknown[] = [];
  const load0 = round1(loadavg()[0] ?? 0);
  try {
    for (let i = 0; i < repeats; i++) results.push(await runSection(name, ctx));
    return {
      name,
      status: 'ok',
      result: deepMedian(results),
      repeats,
      seconds: 0,
      peak_rss_mb: maxRssMb(),
      load_avg: [load0, round1(loadavg()[0] ?? 0)],
    };
  } catch (error) {
    const missing = error instanceof MissingBenchError;
    const message = error instanceof Error ? (missing ? error.message : (error.stack ?? error.message)) : String(error);
    return {
      name,
      status: missing ? 'missing' : 'failed',
      error: message.slice(0, 2000),
      result: results.length > 0 ? deepMedian(results) : null,
      repeats: results.length,
      seconds: 0,
      peak_rss_mb: maxRssMb(),
    };
  }
}

const round1 = (x: number) => Math.round(x * 10) / 10;

async function inChild(name: SectionName, options: BenchOptions, log: (line: string) => void): Promise<SectionOutcome> {
  const tmp = mkdtempSync(join(tmpdir(), 'cds-bench-child-'));
  const out = join(tmp, 'outcome.json');
  const args = [
    resolve(import.meta.dirname, '../bin/run-ts.mjs'),
    resolve(import.meta.dirname, 'bench.ts'),
    '--child',
    name,
    '--out',
    out,
    '--creators',
    String(options.creators),
    '--runs',
    String(options.runs),
    '--work',
    options.workDir,
    ...(options.quick ? ['--quick'] : []),
    ...(options.smoke ? ['--smoke'] : []),
  ];
  try {
    const code = await new Promise<number | string>((resolveExit) => {
      // a large heap: the search-scale section holds a 10M-creator search index
      const child = spawn(process.execPath, ['--max-old-space-size=16384', ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const limit = setTimeout(() => child.kill('SIGKILL'), (options.timeoutSeconds ?? 1800) * 1000);
      const relay = (chunk: Buffer) => {
        for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) log(`   ${line}`);
      };
      child.stdout.on('data', relay);
      child.stderr.on('data', relay);
      child.on('close', (c, signal) => {
        clearTimeout(limit);
        resolveExit(c ?? signal ?? 'unknown');
      });
    });
    try {
      return JSON.parse(readFileSync(out, 'utf8')) as SectionOutcome;
    } catch {
      return {
        name,
        status: 'failed',
        error: `child process ended (${code}) without a result`,
        result: null,
        repeats: 0,
        seconds: 0,
        peak_rss_mb: null,
      };
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The element-wise median of same-shaped results: numbers → median, arrays by index, objects by key, others → first. */
export function deepMedian(values: unknown[]): unknown {
  const first = values[0];
  if (values.length <= 1) return first ?? null;
  if (typeof first === 'number') return median(values.filter((v): v is number => typeof v === 'number'));
  if (Array.isArray(first))
    return first.map((_, i) => deepMedian(values.map((v) => (Array.isArray(v) ? v[i] : undefined))));
  if (first && typeof first === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(first))
      out[key] = deepMedian(values.map((v) => (v as Record<string, unknown> | null)?.[key]));
    return out;
  }
  return first;
}
