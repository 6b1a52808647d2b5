/**
 * `npm run eval:worlds [-- --worlds N --creators C --seed S --lambda L --json]` —
 * leave-one-world-out evaluation of the authenticity training: draws N worlds
 * with widely randomised settings (tools/demo-worlds.ts `drawWorlds`), and for
 * each one trains a model on all the others and evaluates it on the one left
 * out, so every figure is measured on a setting the model never saw. Prints,
 * per world and for the worst world: ROC AUC, precision at `suspicious`, fraud
 * recall at any verdict but `authentic`, how often legitimate-but-unusual
 * creators are called suspicious or anything but authentic, the calibration
 * error per confidence level; then every pattern's rates per world. `--keep DIR`
 * keeps the seeded worlds there for the next run; `--weights` prints the first
 * fold's coefficients. `--detect-purges` removes the generator's bot purge days
 * from every world, so the purge signal reads only the days detected in the
 * history (as on data generated elsewhere), and logs what detection found.
 */
import { parseArgs } from 'node:util';
import type { EvaluationReport } from '../data/authenticity/evaluation.js';
import { selectDemoLabels } from '../data/authenticity/labels.queries.js';
import { evaluateModel, trainModelAcrossWorlds, type LabelledWorld } from '../data/authenticity/model-training.js';
import { drawWorlds, withWorlds, worldName } from './demo-worlds.js';

const { values } = parseArgs({
  options: {
    worlds: { type: 'string', default: '8' },
    creators: { type: 'string', default: '8000' },
    seed: { type: 'string', default: '31' },
    lambda: { type: 'string' },
    keep: { type: 'string' },
    weights: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    'detect-purges': { type: 'boolean', default: false },
  },
});
const n = Number(values.worlds);
const creators = Number(values.creators);
if (!Number.isInteger(n) || n < 2) throw new Error('--worlds must be a whole number ≥ 2');
if (!Number.isInteger(creators) || creators < 1000) throw new Error('--creators must be a whole number ≥ 1000');

interface Fold {
  world: string;
  report: EvaluationReport;
}

const worlds = drawWorlds(n, Number(values.seed), creators);
const folds = await withWorlds(
  worlds,
  async (stores) => {
    const data: LabelledWorld[] = [];
    for (const db of stores) data.push({ db, labels: await selectDemoLabels(db) });
    const out: Fold[] = [];
    for (const [i, left] of data.entries()) {
      const { model } = await trainModelAcrossWorlds(
        data.filter((_, j) => j !== i),
        {
          name: 'leave-one-out',
          version: `lowo-${i + 1}`,
          seed: 42,
          ...(values.lambda ? { lambda: Number(values.lambda) } : {}),
        },
      );
      const { report } = await evaluateModel(left.db, left.labels, model);
      if (values.weights && i === 0)
        console.error(JSON.stringify({ ...model.coefficients, calibration: model.calibration }));
      out.push({ world: worldName(worlds[i] ?? worlds[0]!), report });
      console.error(`world ${i + 1}/${data.length} done: AUC ${report.auc?.toFixed(3)}`);
    }
    return out;
  },
  (line) => console.error(line),
  values.keep,
  values['detect-purges'] ? 'detected' : 'given',
);

const pct = (x: number | null | undefined): string =>
  x === null || x === undefined ? '—' : `${(100 * x).toFixed(1)} %`;
const three = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : x.toFixed(3));

if (values.json) {
  console.log(JSON.stringify(folds, null, 2));
} else {
  console.log(
    '| world left out | ROC AUC | precision at suspicious | fraud recall (not authentic) | unusual legit suspicious | unusual legit not authentic | ECE |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const [i, f] of folds.entries()) {
    const r = f.report;
    console.log(
      `| ${i + 1} | ${three(r.auc)} | ${pct(r.thresholds[1]?.precision)} | ${pct(r.thresholds[0]?.recall)} | ` +
        `${pct(r.unusual_legit?.suspicious)} | ${pct(r.unusual_legit?.not_authentic)} | ${three(r.ece)} |`,
    );
  }
  /** The worst world's figure: the lowest where more is better, the highest where less is. */
  const worst = (pick: (r: EvaluationReport) => number | null | undefined, low: boolean): number | null => {
    const xs = folds.map((f) => pick(f.report)).filter((x): x is number => typeof x === 'number');
    return xs.length === 0 ? null : low ? Math.min(...xs) : Math.max(...xs);
  };
  console.log(
    `| worst | ${three(worst((r) => r.auc, true))} | ${pct(worst((r) => r.thresholds[1]?.precision, true))} | ` +
      `${pct(worst((r) => r.thresholds[0]?.recall, true))} | ${pct(worst((r) => r.unusual_legit?.suspicious, false))} | ` +
      `${pct(worst((r) => r.unusual_legit?.not_authentic, false))} | ${three(worst((r) => r.ece, false))} |`,
  );
  console.log('\nPer pattern, per world left out: share called suspicious / anything but authentic');
  const patterns = [
    ...new Set(folds.flatMap((f) => f.report.patterns.map((p) => `${p.fraud ? 'fraud' : 'legit'} ${p.pattern}`))),
  ].sort();
  console.log(`| pattern | ${folds.map((_, i) => i + 1).join(' | ')} | worst |`);
  console.log(`|---|${folds.map(() => '---').join('|')}|---|`);
  for (const key of patterns) {
    const cells = folds.map((f) =>
      f.report.patterns.find((p) => `${p.fraud ? 'fraud' : 'legit'} ${p.pattern}` === key),
    );
    const fraud = key.startsWith('fraud');
    const rates = cells
      .map((c) => (c ? (fraud ? c.flagged_below_80 : c.flagged_below_60) : null))
      .filter((x): x is number => x !== null);
    const worstRate = rates.length === 0 ? null : fraud ? Math.min(...rates) : Math.max(...rates);
    console.log(
      `| ${key} | ${cells.map((c) => (c ? `${(100 * c.flagged_below_60).toFixed(0)} / ${(100 * c.flagged_below_80).toFixed(0)}` : '—')).join(' | ')} | ${pct(worstRate)} |`,
    );
  }
  console.log('\nCalibration per confidence level (all worlds left out, pooled)');
  for (const level of ['high', 'medium', 'low'] as const) {
    const xs = folds.flatMap((f) => f.report.by_confidence.filter((c) => c.confidence === level));
    if (xs.length === 0) continue;
    const total = xs.reduce((s, x) => s + x.n, 0);
    const mean = (k: 'mean_predicted' | 'observed' | 'ece' | 'suspicious'): number =>
      xs.reduce((s, x) => s + x[k] * x.n, 0) / total;
    console.log(
      `${level}: ${total} creators, mean predicted ${three(mean('mean_predicted'))}, observed ${three(mean('observed'))}, ECE ${three(mean('ece'))}, called suspicious ${pct(mean('suspicious'))}`,
    );
  }
  for (const [i, w] of worlds.entries()) console.log(`world ${i + 1}: ${worldName(w)}`);
}
