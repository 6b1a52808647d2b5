// `npm run bench` — the benchmark report of issue 8.
//
//   npm run bench                         1M creators, 3 runs, every section, writes bench/results.json + BENCHMARKS.md
//   npm run bench -- --creators 50000     a smaller store
//   npm run bench -- --quick              1 run, small webhook batches (with --creators for a toy size)
//   npm run bench -- --smoke              toy windows and sample counts (what the smoke test uses)
//   npm run bench -- --only ingest,export sections: seed, ingest, api, verify, export, webhooks, sync, sources, cluster, lookalikes, overlap, search-scale (only with --only)
//   npm run bench -- --report-only        rebuild the table and BENCHMARKS.md from bench/results.json
//   npm run bench -- --work DIR --out DIR where stores are kept (default bench/work, reused) and where reports go
//   CDS_BENCH_SEARCH_SIZES=1000000,10000000 npm run bench -- --only search-scale   search-scale at those sizes only
//
// Each section runs in its own child process (`--child NAME`), calling the
// area's own bench module; a missing or failing module shows as such in its row.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildRows, formatTable, machineInfo, writeReport, type BenchReport } from './bench-report.js';
import { inProcess, runBench } from './bench-run.js';
import { SECTIONS, type SectionName } from './bench-sections.js';

const { values } = parseArgs({
  options: {
    creators: { type: 'string' },
    runs: { type: 'string' },
    quick: { type: 'boolean' },
    smoke: { type: 'boolean' },
    only: { type: 'string' },
    work: { type: 'string' },
    out: { type: 'string' },
    child: { type: 'string' },
    timeout: { type: 'string' },
    'report-only': { type: 'boolean' },
  },
  strict: true,
});

function positiveInt(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const v = Number(raw.replaceAll('_', ''));
  if (!Number.isInteger(v) || v < 1) {
    process.stderr.write(`--${name} must be a positive integer, got ${raw}\n`);
    process.exit(2);
  }
  return v;
}

const smoke = values.smoke === true;
const quick = values.quick === true || smoke;
const creators = positiveInt('creators', values.creators, 1_000_000);
const runs = positiveInt('runs', values.runs, quick ? 1 : 3);
const workDir = resolve(values.work ?? join(import.meta.dirname, 'work'));
const only = values.only
  ?.split(',')
  .map((x) => x.trim())
  .filter(Boolean) as SectionName[] | undefined;
for (const name of only ?? []) {
  if (!(SECTIONS as readonly string[]).includes(name)) {
    process.stderr.write(`--only: unknown section ${name} (known: ${SECTIONS.join(', ')})\n`);
    process.exit(2);
  }
}

if (values['report-only']) {
  // Rebuild the table from bench/results.json (after a change to how figures are shown) without measuring again.
  const json = values.out ? join(resolve(values.out), 'results.json') : resolve(import.meta.dirname, 'results.json');
  const saved = JSON.parse(readFileSync(json, 'utf8')) as BenchReport;
  const report: BenchReport = { ...saved, rows: buildRows(saved.sections) };
  writeReport(report, {
    json,
    markdown: join(values.out ? resolve(values.out) : resolve(import.meta.dirname, '..'), 'BENCHMARKS.md'),
  });
  process.stdout.write(`${formatTable(report.rows)}\n`);
} else if (values.child) {
  // Child mode: run one section and leave its outcome where the parent asked.
  const outcome = await inProcess(values.child as SectionName, { creators, runs, quick, smoke, workDir }, (line) =>
    process.stdout.write(`${line}\n`),
  );
  writeFileSync(values.out ?? 'outcome.json', JSON.stringify(outcome));
  // the outcome is written: the section's leftovers (a timer, a pool, a store a section left open) must not keep
  // the child, idle, from ending (a search-scale run sat 7 minutes so, holding its store, until it was stopped)
  process.exit(0);
} else {
  const started = new Date();
  const outDir = resolve(values.out ?? resolve(import.meta.dirname, '..'));
  mkdirSync(outDir, { recursive: true });
  const json = values.out ? join(outDir, 'results.json') : resolve(import.meta.dirname, 'results.json');
  const fresh = await runBench({
    creators,
    runs,
    quick,
    smoke,
    workDir,
    only,
    timeoutSeconds: positiveInt('timeout', values.timeout, 1800),
  });
  // With --only, the other sections of an earlier report of the same size are kept (re-run one area without redoing all).
  const earlier = only && existsSync(json) ? (JSON.parse(readFileSync(json, 'utf8')) as BenchReport) : null;
  const kept =
    earlier && earlier.options.creators === creators ? earlier.sections.filter((o) => !only?.includes(o.name)) : [];
  const outcomes = [...kept, ...fresh].sort((a, b) => SECTIONS.indexOf(a.name) - SECTIONS.indexOf(b.name));
  const command = `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim().replace(/ --$/, '');
  const report: BenchReport = {
    generated_at: started.toISOString(),
    command: kept.length > 0 ? `${earlier?.command ?? ''}; then ${command}` : command,
    options: { creators, runs, quick },
    machine: await machineInfo(),
    rows: buildRows(outcomes),
    sections: outcomes,
  };
  writeReport(report, { json, markdown: join(outDir, 'BENCHMARKS.md') });
  process.stdout.write(`\n${formatTable(report.rows)}\n\nwrote ${json} and ${join(outDir, 'BENCHMARKS.md')}\n`);
  if (fresh.some((o) => o.status === 'failed')) process.exitCode = 1;
}
