/**
 * `npm run eval:verify [-- options] [labelled.csv …]` — measures the authenticity
 * model on labelled creators: ROC AUC, precision and recall at the verdict
 * thresholds, and the label × verdict confusion matrix.
 *
 * Without `--store` it seeds temporary demo stores (each `--dataset seed:spikeScale`,
 * default the standard demo seed plus two held-out seeds with smaller and larger
 * follower spikes) and scores their ground-truth labels through the same
 * precompute that `npm start` runs. With `--store FILE` it scores that store's
 * labels (the server must not hold the file). Every CSV given (columns platform,
 * handle, label; label `authentic` or any fraud label) is scored against the
 * first store.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'csv-parse/sync';
import { ablate, evaluate, type EvaluationReport, type SignalAblation } from '../data/authenticity/evaluation.js';
import {
  selectDemoLabelled, selectLabelledHandles, selectSignalPenalties, selectSpikedAuthentic, type LabelledHandle,
} from '../data/authenticity/evaluation.queries.js';
import { MODEL_VERSION, PEER_SIGNALS } from '../data/authenticity/model.js';
import { normaliseHandle } from '../data/creators/creator-profile.service.js';
import { ensureDemoAccount } from '../data/seed/demo-account.js';
import { seedDemoData } from '../data/seed/demo-generator.js';
import { Store } from '../data/store.js';

const USAGE = `usage: npm run eval:verify -- [--creators N] [--dataset SEED:SPIKE_SCALE …] [--store FILE] [--json] [labelled.csv …]`;
const DEFAULT_DATASETS = ['42:1', '1234:0.4', '99:1.6'];
const AS_OF = '2026-11-21';

interface DatasetResult {
  name: string;
  report: EvaluationReport;
  seconds?: number;
  missing?: number;
  /** Authentic creators with a (viral) follower spike, and how many of them the model flags. */
  spiked_authentic?: { n: number; flagged: number };
  ablation?: SignalAblation[];
}

const { values, positionals } = parseArgs({
  options: {
    creators: { type: 'string', default: '20000' },
    dataset: { type: 'string', multiple: true },
    store: { type: 'string' },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
  allowPositionals: true,
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const creators = Number(values.creators);
if (!Number.isInteger(creators) || creators < 1000) fail('--creators must be a whole number ≥ 1000');
const results: DatasetResult[] = [];

if (values.store) {
  const store = await Store.open(values.store, { readOnly: true });
  try {
    results.push({ name: `store ${values.store}`, report: evaluate(await selectDemoLabelled(store)) });
    for (const file of positionals) results.push(await evaluateCsv(store, file));
  } finally {
    await store.close();
  }
} else {
  const datasets = values.dataset ?? DEFAULT_DATASETS;
  for (const [i, spec] of datasets.entries()) {
    const [seed, scale] = spec.split(':').map(Number);
    if (!Number.isInteger(seed) || !(Number(scale ?? 1) > 0)) fail(`--dataset ${spec}: expected SEED:SPIKE_SCALE, e.g. 42:1`);
    await withSeededStore(Number(seed), Number(scale ?? 1), async (store, seconds) => {
      const name = `demo seed ${seed}, spikes ×${scale ?? 1}, ${creators.toLocaleString('en-US')} creators`;
      results.push({
        name, report: evaluate(await selectDemoLabelled(store)), seconds, spiked_authentic: await selectSpikedAuthentic(store),
        ablation: ablate(['follower_spikes', ...PEER_SIGNALS.map((x) => x.code)], await selectSignalPenalties(store)),
      });
      if (i === 0) for (const file of positionals) results.push(await evaluateCsv(store, file));
    });
  }
}

if (values.json) console.log(JSON.stringify({ model_version: MODEL_VERSION, results }, null, 2));
else print(results);

async function withSeededStore(seed: number, spikeScale: number, fn: (store: Store, seconds: number) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cds-eval-'));
  const store = await Store.open(join(dir, 'cds.duckdb'));
  try {
    const account = await ensureDemoAccount(store);
    const seeded = await seedDemoData(store, { creators, seed, spikeScale, asOf: AS_OF, demoAccountId: account.account_id });
    await fn(store, seeded.seconds);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function evaluateCsv(store: Store, file: string): Promise<DatasetResult> {
  const records = parse(readFileSync(file), { columns: true, skip_empty_lines: true, trim: true }) as Array<Record<string, string>>;
  const items: LabelledHandle[] = records.map((r, i) => {
    const handle = normaliseHandle(r['handle'] ?? '');
    if (!handle || !r['platform'] || !r['label']) fail(`${file} line ${i + 2}: needs platform, handle and label`);
    return { platform: r['platform'].toLowerCase(), handle, label: r['label'].toLowerCase() };
  });
  const { scored, missing } = await selectLabelledHandles(store, items);
  return { name: `csv ${file}`, report: evaluate(scored), missing: missing.length };
}

function print(all: readonly DatasetResult[]): void {
  const pct = (x: number | null): string => (x === null ? 'n/a' : `${(x * 100).toFixed(1)} %`);
  console.log(`authenticity model ${MODEL_VERSION}`);
  for (const r of all) {
    console.log(`\n== ${r.name}${r.seconds ? ` (seeded + scored in ${r.seconds.toFixed(1)} s)` : ''}`);
    if (r.missing) console.log(`   ${r.missing} labelled handles not found in the store (skipped)`);
    console.log(`   creators ${r.report.n}, frauds ${r.report.frauds}, ROC AUC ${auc(r.report.auc)}`);
    for (const t of r.report.thresholds) {
      console.log(`   flag ${t.name.padEnd(28)} flagged ${String(t.flagged).padStart(6)}  precision ${pct(t.precision).padStart(7)}  recall ${pct(t.recall).padStart(7)}`);
    }
    console.log(`   ${'label'.padEnd(18)}${['authentic', 'questionable', 'suspicious'].map((v) => v.padStart(14)).join('')}`);
    for (const [label, row] of Object.entries(r.report.confusion).sort()) {
      console.log(`   ${label.padEnd(18)}${['authentic', 'questionable', 'suspicious'].map((v) => String(row[v] ?? 0).padStart(14)).join('')}`);
    }
    if (r.spiked_authentic) {
      console.log(`   authentic creators with a follower spike: ${r.spiked_authentic.n}, scored below 80: ${r.spiked_authentic.flagged}`);
    }
    if (r.ablation) {
      console.log(`   ${'signal'.padEnd(22)}${'AUC alone'.padStart(11)}${'AUC without'.padStart(13)}`);
      for (const a of r.ablation) console.log(`   ${a.code.padEnd(22)}${auc(a.auc_alone).padStart(11)}${auc(a.auc_without).padStart(13)}`);
    }
  }
}

function auc(x: number | null): string {
  return x === null ? 'n/a' : x.toFixed(5);
}

function fail(message: string): never {
  console.error(`eval:verify: ${message}\n${USAGE}`);
  process.exit(2);
}
