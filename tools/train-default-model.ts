/**
 * `npm run model:default [-- --check]` — reproduces the shipped default model
 * (data/authenticity/default-model.json): seeds the training worlds (TRAINING_WORLDS
 * worlds of TRAINING_CREATORS creators with widely randomised settings, drawn
 * from seed 42: tools/demo-worlds.ts `drawWorlds`), trains one model across them
 * with the default settings (seed 42, 30 % held out for calibration), evaluates
 * it on the standard demo world and on the harder held-out setting (neither of
 * them trained on), and writes the file. `--check` writes nothing and exits 1
 * when the committed file differs from what training gives.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { selectDemoLabels } from '../data/authenticity/labels.queries.js';
import {
  evaluateModel,
  summarise,
  trainModelAcrossWorlds,
  type LabelledWorld,
} from '../data/authenticity/model-training.js';
import { modelVersion } from '../data/authenticity/model-spec.js';
import { DEFAULT_MODEL_FILE as FILE } from '../data/authenticity/trained-model.js';
import { HELD_OUT_WORLD, TRAIN_WORLD, drawWorlds, withWorld, withWorlds, worldName } from './demo-worlds.js';

/** How many drawn worlds the default model is trained on, and their size. */
const TRAINING_WORLDS = 8;
const TRAINING_CREATORS = 8000;
const TRAINING_SEED = 42;

const { values } = parseArgs({
  options: {
    check: { type: 'boolean', default: false },
    lambda: { type: 'string' },
    keep: { type: 'string' },
  },
});

const worlds = drawWorlds(TRAINING_WORLDS, TRAINING_SEED, TRAINING_CREATORS);
const model = await withWorlds(
  worlds,
  async (stores) => {
    const data: LabelledWorld[] = [];
    for (const db of stores) data.push({ db, labels: await selectDemoLabels(db) });
    const { model } = await trainModelAcrossWorlds(data, {
      name: 'demo-default',
      version: modelVersion(0),
      seed: 42,
      createdAt: '2026-11-27T00:00:00Z',
      ...(values.lambda ? { lambda: Number(values.lambda) } : {}),
    });
    return model;
  },
  (line) => console.error(line),
  values.keep,
);
model.metrics['trained_on'] = worlds.map(worldName);
for (const [key, world] of [
  ['standard_world', TRAIN_WORLD],
  ['cross_setting', HELD_OUT_WORLD],
] as const) {
  model.metrics[key] = await withWorld(world, async (store) => ({
    world: worldName(world),
    ...summarise((await evaluateModel(store, await selectDemoLabels(store), model)).report),
  }));
}
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
