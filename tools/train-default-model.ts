/**
 * `npm run model:default [-- --check]` — reproduces the shipped default model
 * (data/authenticity/default-model.json): seeds the standard demo world
 * (seed 42, 20,000 creators), trains on its labels with the default settings
 * (seed 42, 30 % held out for calibration), evaluates it on the harder held-out
 * world, and writes the file. `--check` writes nothing and exits 1 when the
 * committed file differs from what training gives.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { selectDemoLabels } from '../data/authenticity/labels.queries.js';
import { evaluateModel, summarise, trainModel } from '../data/authenticity/model-training.js';
import { modelVersion } from '../data/authenticity/model-spec.js';
import { DEFAULT_MODEL_FILE as FILE } from '../data/authenticity/trained-model.js';
import { HELD_OUT_WORLD, TRAIN_WORLD, withWorld, worldName } from './demo-worlds.js';

const { values } = parseArgs({ options: { check: { type: 'boolean', default: false }, lambda: { type: 'string' } } });

const model = await withWorld(TRAIN_WORLD, async (store) => {
  const { model } = await trainModel(store, await selectDemoLabels(store), {
    name: 'demo-default',
    version: modelVersion(0),
    seed: 42,
    createdAt: '2026-11-23T00:00:00Z',
    ...(values.lambda ? { lambda: Number(values.lambda) } : {}),
  });
  return model;
});
model.metrics['trained_on'] = worldName(TRAIN_WORLD);
model.metrics['cross_setting'] = await withWorld(HELD_OUT_WORLD, async (store) => ({
  world: worldName(HELD_OUT_WORLD),
  ...summarise((await evaluateModel(store, await selectDemoLabels(store), model)).report),
}));
const text = `${JSON.stringify(model, null, 2)}\n`;
console.log(
  JSON.stringify({ coefficients: model.coefficients, calibration: model.calibration, metrics: model.metrics }, null, 1),
);
if (values.check) {
  const same = readFileSync(FILE, 'utf8') === text;
  console.log(
    same ? 'default-model.json is reproduced exactly' : 'default-model.json differs from what training gives',
  );
  process.exit(same ? 0 : 1);
}
writeFileSync(FILE, text);
console.log(`wrote ${FILE}`);
