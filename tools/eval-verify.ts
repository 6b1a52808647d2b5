/**
 * `npm run eval:verify [-- options] [labelled.csv …]` — measures the
 * authenticity model on labelled creators: ROC AUC, precision and recall at the
 * verdict thresholds, the Brier score, the expected calibration error, a
 * reliability diagram (SVG), recall per fraud pattern and the false-positive
 * rate per legitimate pattern.
 *
 * Without `--store` it seeds two temporary worlds: the standard demo world
 * (seed 42) and a harder held-out setting (seed 1234, subtler fraud, noisier
 * data, missing days). The built-in model was trained on neither (it is trained
 * across drawn worlds: tools/train-default-model.ts). It evaluates the model
 * (default: the built-in one) on both, then trains a model on the held-out world and
 * evaluates it on the standard one, the other direction. With `--store FILE` it
 * evaluates that store's demo labels (the server must not hold the file).
 * Every CSV given (platform, handle, label 0/1, optional pattern) is evaluated
 * against the standard world's store, or the `--store`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { EvaluationReport } from '../data/authenticity/evaluation.js';
import { parseLabelsCsv } from '../data/authenticity/labels.js';
import { selectDemoLabels } from '../data/authenticity/labels.queries.js';
import { activeModel, findModel } from '../data/authenticity/model-registry.queries.js';
import { evaluateModel, trainModel } from '../data/authenticity/model-training.js';
import { reliabilitySvg } from '../data/authenticity/reliability-svg.js';
import type { TrainedModel } from '../data/authenticity/trained-model.js';
import { Store } from '../data/store.js';
import { formatReport } from '../cli/commands/model.commands.js';
import { HELD_OUT_WORLD, TRAIN_WORLD, withWorld, worldName, type World } from './demo-worlds.js';

const USAGE =
  'usage: npm run eval:verify -- [--creators N] [--store FILE] [--model V] [--svg-dir DIR] [--json] [labelled.csv …]';

interface Result {
  name: string;
  model_version: string;
  missing: number;
  report: EvaluationReport;
  svg?: string;
}

const { values, positionals } = parseArgs({
  options: {
    creators: { type: 'string', default: String(TRAIN_WORLD.creators) },
    store: { type: 'string' },
    model: { type: 'string' },
    'svg-dir': { type: 'string', default: 'docs/authenticity' },
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
const csvs = positionals.map((file) => ({ file, labels: parseLabelsCsv(readFileSync(file)) }));
const results: Result[] = [];

async function chosenModel(store: Store): Promise<TrainedModel> {
  const model = values.model ? await findModel(store, values.model) : await activeModel(store);
  if (!model) fail(`no model ${values.model} in this store`);
  return model;
}

async function run(
  store: Store,
  name: string,
  model: TrainedModel,
  labels = selectDemoLabels(store),
  svg?: string,
): Promise<void> {
  const { report, missing } = await evaluateModel(store, await labels, model);
  results.push({ name, model_version: model.version, missing: missing.length, report, ...(svg ? { svg } : {}) });
  if (svg) {
    mkdirSync(values['svg-dir'], { recursive: true });
    writeFileSync(
      join(values['svg-dir'], svg),
      reliabilitySvg(`${model.version} — ${name}`, report.reliability, report.ece),
    );
  }
}

async function csvRuns(store: Store, model: TrainedModel): Promise<void> {
  for (const { file, labels } of csvs) await run(store, `csv ${file}`, model, Promise.resolve(labels));
}

if (values.store) {
  const store = await Store.open(values.store, { readOnly: true });
  try {
    const model = await chosenModel(store);
    await run(store, `store ${values.store}`, model);
    await csvRuns(store, model);
  } finally {
    await store.close();
  }
} else {
  const train: World = { ...TRAIN_WORLD, creators };
  const held: World = { ...HELD_OUT_WORLD, creators };
  let reverse: TrainedModel | undefined;
  await withWorld(held, async (store) => {
    await run(store, `held out: ${worldName(held)}`, await chosenModel(store), undefined, 'reliability-held-out.svg');
    reverse = (
      await trainModel(store, await selectDemoLabels(store), { name: 'trained-on-hard', version: 'reverse', seed: 42 })
    ).model;
  });
  await withWorld(train, async (store) => {
    const model = await chosenModel(store);
    await run(store, `demo labels: ${worldName(train)}`, model, undefined, 'reliability-demo.svg');
    if (reverse)
      await run(
        store,
        `reverse: trained on the ${held.variant} world, evaluated on the ${train.variant} world`,
        reverse,
      );
    await csvRuns(store, model);
  });
}

if (values.json) console.log(JSON.stringify(results, null, 2));
else {
  for (const r of results) {
    console.log(
      `\n== ${r.name} — model ${r.model_version}${r.svg ? ` (reliability diagram: ${join(values['svg-dir'], r.svg)})` : ''}`,
    );
    if (r.missing) console.log(`   ${r.missing} labelled handles not found in the store (skipped)`);
    for (const line of formatReport(r.report)) console.log(`   ${line}`);
  }
}

function fail(message: string): never {
  console.error(`eval:verify: ${message}\n${USAGE}`);
  process.exit(2);
}
