/**
 * `npm run eval:labels [-- --creators C --seed S --keep DIR]` — how many
 * customer labels it takes to move the authenticity figures. Seeds one world
 * with randomised settings that no shipped model was trained on (a customer's
 * own world), then for each label count trains a model on that many of its
 * creators' labels (what `cds model train --labels` does) and evaluates it on
 * the creators it was not given, next to the built-in model on the same
 * creators. Each count is trained from scratch and from the built-in model
 * (`--prior`, with each pull of `--strengths`). Every count is drawn 3 times with
 * different seeds; the figures are their means.
 */
import { parseArgs } from 'node:util';
import { prng } from '../core/prng.js';
import type { EvaluationReport } from '../data/authenticity/evaluation.js';
import type { LabelRow } from '../data/authenticity/labels.js';
import { selectDemoLabels } from '../data/authenticity/labels.queries.js';
import { PRIOR_STRENGTH, evaluateModel, trainModel, type TrainOptions } from '../data/authenticity/model-training.js';
import { builtInModel } from '../data/authenticity/trained-model.js';
import { drawWorlds, withWorlds, worldName } from './demo-worlds.js';

const COUNTS = [100, 300, 1000, 3000] as const;
const DRAWS = 3;

const { values } = parseArgs({
  options: {
    creators: { type: 'string', default: '10000' },
    seed: { type: 'string', default: '77' },
    keep: { type: 'string' },
    strengths: { type: 'string', default: String(PRIOR_STRENGTH) },
  },
});
const strengths = values.strengths.split(',').map(Number);
const [world] = drawWorlds(1, Number(values.seed), Number(values.creators));
if (!world) throw new Error('no world drawn');

interface Row {
  labels: string;
  auc: number;
  precision: number;
  recall: number;
  unusualSuspicious: number;
  unusualNotAuthentic: number;
}

function figures(name: string, reports: EvaluationReport[]): Row {
  const mean = (f: (r: EvaluationReport) => number | null | undefined): number =>
    reports.reduce((s, r) => s + (f(r) ?? Number.NaN), 0) / reports.length;
  return {
    labels: name,
    auc: mean((r) => r.auc),
    precision: mean((r) => r.thresholds[1]?.precision),
    recall: mean((r) => r.thresholds[0]?.recall),
    unusualSuspicious: mean((r) => r.unusual_legit?.suspicious),
    unusualNotAuthentic: mean((r) => r.unusual_legit?.not_authentic),
  };
}

const rows = await withWorlds(
  [world],
  async ([store]) => {
    if (!store) throw new Error('no store');
    const all = await selectDemoLabels(store);
    const out: Row[] = [];
    const byCount = new Map<string, EvaluationReport[]>();
    const builtIn: EvaluationReport[] = [];
    for (let draw = 0; draw < DRAWS; draw++) {
      const rand = prng(1000 + draw);
      const order = all.map((label) => ({ label, r: rand() })).sort((a, b) => a.r - b.r);
      // the evaluation set: the creators no count's sample takes (the largest sample is a prefix of the order)
      const largest = COUNTS[COUNTS.length - 1] ?? 0;
      const rest: LabelRow[] = order.slice(largest).map((x) => x.label);
      builtIn.push((await evaluateModel(store, rest, builtInModel())).report);
      for (const n of COUNTS) {
        const sample = order.slice(0, n).map((x) => x.label);
        const runs: Array<[string, Partial<TrainOptions>]> = [
          [`${n} labels, from scratch`, {}],
          ...strengths.map((k): [string, Partial<TrainOptions>] => [
            `${n} labels, from the built-in model (pull ${k})`,
            { prior: builtInModel(), priorStrength: k },
          ]),
        ];
        for (const [name, extra] of runs) {
          const { model } = await trainModel(store, sample, {
            name: 'labels',
            version: 'labels',
            seed: draw + 1,
            ...extra,
          });
          const reports = byCount.get(name) ?? [];
          reports.push((await evaluateModel(store, rest, model)).report);
          byCount.set(name, reports);
        }
        console.error(`draw ${draw + 1}: ${n} labels done`);
      }
    }
    out.push(figures('built-in model, no labels', builtIn));
    for (const [name, reports] of byCount) out.push(figures(name, reports));
    return out;
  },
  (line) => console.error(line),
  values.keep,
);

const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;
console.log(`Customer world: ${worldName(world)}`);
console.log(
  '| trained on | ROC AUC | precision at suspicious | fraud recall (not authentic) | unusual legit suspicious | unusual legit not authentic |',
);
console.log('|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${r.labels} | ${r.auc.toFixed(3)} | ${pct(r.precision)} | ${pct(r.recall)} | ${pct(r.unusualSuspicious)} | ${pct(r.unusualNotAuthentic)} |`,
  );
}
