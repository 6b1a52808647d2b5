import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRows, formatTable, machineInfo, writeReport, type BenchReport } from '../../bench/bench-report.js';
import { deepMedian, runBench, type SectionOutcome } from '../../bench/bench-run.js';
import { SECTIONS } from '../../bench/bench-sections.js';

// `npm run bench` at toy size: every section the areas provide runs once, in
// this process, on 300 creators; the report must have its shape. Figures at
// this size mean nothing — the real table comes from `npm run bench`.
let dir: string;
let outcomes: SectionOutcome[];
let report: BenchReport;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cds-bench-smoke-'));
  outcomes = await runBench({
    creators: 300,
    runs: 1,
    quick: true,
    smoke: true,
    workDir: join(dir, 'work'),
    inProcess: true,
    // Postgres sync is left to its own tests: starting a server here would double this file's time.
    only: SECTIONS.filter((s) => s !== 'sync'),
    log: () => undefined,
  });
  report = {
    generated_at: new Date().toISOString(),
    command: 'smoke',
    options: { creators: 300, runs: 1, quick: true },
    machine: await machineInfo(),
    rows: buildRows(outcomes),
    sections: outcomes,
  };
  writeReport(report, { json: join(dir, 'results.json'), markdown: join(dir, 'BENCHMARKS.md') });
}, 300_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the bench at toy size', () => {
  it('runs every section, none failing (a module not written yet is reported missing)', () => {
    expect(outcomes.map((o) => o.name)).toEqual(SECTIONS.filter((s) => s !== 'sync'));
    const failed = outcomes.filter((o) => o.status === 'failed').map((o) => `${o.name}: ${o.error}`);
    expect(failed, failed.join('\n')).toEqual([]);
    expect(outcomes.find((o) => o.name === 'seed')?.status).toBe('ok');
  });

  it('gives each section that ran at least one row with a figure, its target verdict and peak RSS', () => {
    for (const o of outcomes.filter((x) => x.status === 'ok')) {
      const rows = report.rows.filter((r) => r.area === o.name);
      expect(rows.length, o.name).toBeGreaterThan(0);
      expect(
        rows.some((r) => r.value !== '—'),
        o.name,
      ).toBe(true);
      for (const r of rows) {
        expect(r.peak_rss_mb ?? 0, `${o.name} ${r.figure}`).toBeGreaterThan(0);
        // a verdict exactly where there is a target and a figure to hold against it (bench/bench-rows.ts)
        expect(r.meets === null, `${o.name} ${r.figure}: meets ${String(r.meets)} against target ${r.target}`).toBe(
          r.target === '—' || r.value === '—',
        );
      }
    }
    const seed = report.rows.find((r) => r.area === 'seed' && r.figure.startsWith('seed 300 creators'));
    expect(seed?.limit).toMatch(/disk write/);
    expect(seed?.ratio).toBeGreaterThan(0);
    // and the verdict follows the figure: 300 creators seed far inside the 120 s target, into far less than 5 GB
    expect(seed?.meets).toBe(true);
    expect(report.rows.find((r) => r.area === 'seed' && r.figure === 'store file size')?.meets).toBe(true);
  });

  it('writes results.json with the machine and BENCHMARKS.md with the table between its markers', () => {
    const json = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as BenchReport;
    expect(json.machine.cores).toBeGreaterThan(0);
    expect(json.machine.duckdb).toMatch(/^v\d/);
    expect(json.rows.length).toBe(report.rows.length);
    const md = readFileSync(join(dir, 'BENCHMARKS.md'), 'utf8');
    expect(md).toContain('| area | figure | ours | limit (same run) | ratio | target | meets | peak RSS |');
    expect(md).toMatch(/<!-- bench:begin[^]*<!-- bench:end -->/);
    expect(formatTable(report.rows).split('\n').length).toBeGreaterThanOrEqual(report.rows.length + 2);
  });

  it('keeps hand-written text around the generated block when it rewrites BENCHMARKS.md', () => {
    const path = join(dir, 'BENCHMARKS.md');
    const before = readFileSync(path, 'utf8');
    writeReport(report, { json: join(dir, 'results.json'), markdown: path });
    expect(readFileSync(path, 'utf8')).toBe(before);
    expect(existsSync(join(dir, 'work', 'seed-300', 'seed.json'))).toBe(true);
  });

  it('reduces repeated results to element-wise medians', () => {
    expect(
      deepMedian([
        { a: 1, b: [5, 'x'] },
        { a: 3, b: [1, 'y'] },
        { a: 2, b: [3, 'z'] },
      ]),
    ).toEqual({ a: 2, b: [3, 'x'] });
  });
});
