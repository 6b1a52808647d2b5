// Turns section outcomes into the bench table: each figure beside the physical
// limit measured in the same run, the ratio, the target and peak RSS.
// Prints it, and writes bench/results.json and the table block of BENCHMARKS.md.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, release, platform } from 'node:os';
import { Store } from '../data/store.js';
import type { SectionOutcome } from './bench-run.js';
import { areaRows, type BenchRow } from './bench-rows.js';

export type { BenchRow } from './bench-rows.js';

export interface Machine {
  cpu: string;
  cores: number;
  memory_gb: number;
  os: string;
  node: string;
  duckdb: string;
}

export interface BenchReport {
  generated_at: string;
  command: string;
  options: { creators: number; runs: number; quick: boolean };
  machine: Machine;
  rows: BenchRow[];
  sections: SectionOutcome[];
}

/** CPU, cores, memory, Node and DuckDB versions of this machine. */
export async function machineInfo(): Promise<Machine> {
  const store = await Store.open(':memory:');
  let duckdb = 'unknown';
  try {
    duckdb = (await store.one<{ v: string }>('SELECT version() AS v'))?.v ?? duckdb;
  } finally {
    await store.close();
  }
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: cpus().length,
    memory_gb: Math.round((totalmem() / 1e9) * 10) / 10,
    os: `${platform()} ${release()}`,
    node: process.version,
    duckdb,
  };
}

/** Every table row of the run: the area's figures, or one row saying why the area has none. */
export function buildRows(outcomes: readonly SectionOutcome[]): BenchRow[] {
  const rows: BenchRow[] = [];
  for (const o of outcomes) {
    if (o.status === 'ok' || (o.status === 'failed' && o.result)) {
      try {
        rows.push(...areaRows(o));
      } catch (error) {
        rows.push(placeholder(o, `result not understood: ${(error as Error).message}`));
      }
    }
    if (o.status !== 'ok') rows.push(placeholder(o, `${STATUS_WORD[o.status]} — ${(o.error ?? '').split('\n')[0]}`));
  }
  return rows;
}

const STATUS_WORD: Readonly<Record<SectionOutcome['status'], string>> = {
  ok: 'OK',
  failed: 'FAILED',
  missing: 'MISSING',
  skipped: 'SKIPPED',
};

function placeholder(o: SectionOutcome, why: string): BenchRow {
  return {
    area: o.name,
    figure: '—',
    value: '—',
    limit: '—',
    ratio: null,
    target: '—',
    meets: null,
    peak_rss_mb: o.peak_rss_mb,
    note: why,
  };
}

/** 0.83×; small ratios keep two significant digits (0.0041×) instead of rounding to 0.00×. */
function fmtRatio(ratio: number | null): string {
  if (ratio === null) return '—';
  return ratio > 0 && ratio < 0.1 ? `${ratio.toPrecision(2)}×` : `${ratio.toFixed(2)}×`;
}

/** A row's cells in the table's column order, for both renderings; `no` is how a missed target reads. */
function rowCells(r: BenchRow, no: string): string[] {
  return [
    r.area,
    r.figure,
    r.value,
    r.limit,
    fmtRatio(r.ratio),
    r.target,
    r.meets === null ? '—' : r.meets ? 'yes' : no,
    r.peak_rss_mb === null ? '—' : `${r.peak_rss_mb} MB`,
  ];
}

/** The table as fixed-width text for the terminal. */
export function formatTable(rows: readonly BenchRow[]): string {
  const head = ['area', 'figure', 'ours', 'limit (same run)', 'ratio', 'target', 'ok', 'peak RSS'];
  const body = rows.map((r) => rowCells(r, 'NO'));
  const widths = head.map((h, i) => Math.min(60, Math.max(h.length, ...body.map((b) => (b[i] ?? '').length))));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.slice(0, widths[i]).padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const notes = rows.filter((r) => r.note).map((r) => `  ${r.area} ${r.figure}: ${r.note}`);
  return [
    line(head),
    line(widths.map((w) => '─'.repeat(w))),
    ...body.map(line),
    ...(notes.length > 0 ? ['', 'notes:', ...notes] : []),
  ].join('\n');
}

/** The table as Markdown (goes between the bench markers of BENCHMARKS.md). */
export function markdownTable(report: BenchReport): string {
  const m = report.machine;
  const cell = (s: string) => s.replaceAll('|', '\\|');
  const lines = [
    `Generated ${report.generated_at} by \`${report.command}\` — ${report.options.creators.toLocaleString('en-US')} creators, ` +
      `${report.options.runs} run(s) per figure (medians)${report.options.quick ? ', quick mode' : ''}.`,
    '',
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memory_gb} GB RAM, ${m.os}; Node ${m.node}; DuckDB ${m.duckdb}.`,
    '',
    '| area | figure | ours | limit (same run) | ratio | target | meets | peak RSS |',
    '|---|---|---|---|---|---|---|---|',
    ...report.rows.map((r) => `| ${rowCells(r, '**no**').map(cell).join(' | ')} |`),
  ];
  const notes = report.rows.filter((r) => r.note);
  if (notes.length > 0) lines.push('', ...notes.map((r) => `- ${r.area} / ${r.figure}: ${cell(r.note ?? '')}`));
  const loads = report.sections.filter((o) => o.load_avg).map((o) => `${o.name} ${o.load_avg?.[0]}→${o.load_avg?.[1]}`);
  if (loads.length > 0)
    lines.push(
      '',
      `Machine load average (1 min) at the start→end of each section, on ${m.cores} cores: ${loads.join(', ')}.`,
    );
  return lines.join('\n');
}

const BEGIN = '<!-- bench:begin (written by npm run bench; edit outside these markers) -->';
const END = '<!-- bench:end -->';

/** Writes results.json, and replaces the generated block of the Markdown file (hand-written text around it is kept). */
export function writeReport(report: BenchReport, paths: { json: string; markdown: string }): void {
  writeFileSync(paths.json, `${JSON.stringify(report, null, 2)}\n`);
  const block = `${BEGIN}\n${markdownTable(report)}\n${END}`;
  const existing = existsSync(paths.markdown) ? readFileSync(paths.markdown, 'utf8') : '';
  const start = existing.indexOf(BEGIN);
  const end = existing.indexOf(END);
  const next =
    start >= 0 && end > start
      ? `${existing.slice(0, start)}${block}${existing.slice(end + END.length)}`
      : `# Benchmarks\n\n\`npm run bench\` (see bench/bench.ts for flags). Ratios are ours against the physical limit measured in the same run: 1.00× is as fast as the limit.\n\n${block}\n`;
  writeFileSync(paths.markdown, next);
}
