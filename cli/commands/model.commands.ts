import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { EvaluationReport } from '../../data/authenticity/evaluation.js';
import { int, str, UsageError, type CliCommand, type ParsedArgs } from '../command.js';
import { jsonOption, printer } from '../output.js';

/** What the `model.train` admin op answers. */
interface TrainResult {
  version: string;
  name: string;
  matched: number;
  missing: number;
  missing_listed: string[];
  metrics: Record<string, unknown>;
}

/** One model as the `model.list` admin op answers it. */
interface ModelSummary {
  version: string;
  name: string;
  created_at: string;
  active: boolean;
  builtin: boolean;
  training_sha256: string;
  held_out: Record<string, unknown> | null;
}

/** What the `model.eval` admin op answers. */
interface EvalResult {
  model_version: string;
  labels: string;
  missing: number;
  missing_listed: string[];
  report: EvaluationReport;
}

/** What a labels file holds, as the help and the usage error say it. */
const LABELS_CSV = 'a CSV with columns platform, handle, label (0 legitimate, 1 fraud), optional pattern';

const pct = (x: unknown): string => (typeof x === 'number' ? `${(x * 100).toFixed(1)} %` : 'n/a');
const fixed = (x: unknown, digits = 4): string => (typeof x === 'number' ? x.toFixed(digits) : 'n/a');

/** The labels file, resolved where the user typed it (a running server may work in another folder). */
function labelsPath(a: ParsedArgs, required: boolean): string | null {
  const path = str(a, 'labels');
  if (!path && required) throw new UsageError(`--labels <csv> is required (${LABELS_CSV})`);
  return path ? resolve(path) : null;
}

function missingLines(r: { missing: number; missing_listed: string[] }): string[] {
  if (r.missing === 0) return [];
  const more = r.missing > r.missing_listed.length ? ` and ${r.missing - r.missing_listed.length} more` : '';
  return [`not in the store (skipped): ${r.missing} — ${r.missing_listed.join(', ')}${more}`];
}

/** The figures of one evaluation, as `eval:verify` prints them. */
export function formatReport(r: EvaluationReport): string[] {
  const lines = [
    `creators ${r.n}, frauds ${r.frauds}, ROC AUC ${fixed(r.auc, 5)}, Brier ${fixed(r.brier)}, ECE ${fixed(r.ece)}`,
  ];
  for (const t of r.thresholds) {
    lines.push(
      `flag ${t.name.padEnd(30)} flagged ${String(t.flagged).padStart(6)}  precision ${pct(t.precision).padStart(7)}  recall ${pct(t.recall).padStart(7)}`,
    );
  }
  if (r.patterns.length > 0) {
    lines.push(
      'pattern                 kind    n       flagged <80  flagged <60   (recall for fraud, false-positive rate for legitimate)',
    );
    for (const p of r.patterns) {
      lines.push(
        `${p.pattern.padEnd(24)}${(p.fraud ? 'fraud' : 'legit').padEnd(8)}${String(p.n).padEnd(8)}${pct(p.flagged_below_80).padStart(11)}  ${pct(p.flagged_below_60).padStart(11)}`,
      );
    }
  }
  return lines;
}

export const modelTrainCommand: CliCommand = {
  name: 'model train',
  maxPositionals: 0,
  usage: 'cds model train --labels <csv> [--name N] [--seed S] [--from-scratch] [--json]',
  summary:
    'train an authenticity model from labelled creators in the store, adjusting the active model (stored inactive; see model activate)',
  options: {
    labels: { type: 'string', help: `${LABELS_CSV} (required)` },
    name: { type: 'string', help: 'a name for the model (default: trained)' },
    seed: {
      type: 'string',
      help: 'chooses the 30 % held out for calibration; the same seed and labels train the same model (default 42)',
    },
    'from-scratch': {
      type: 'boolean',
      help:
        'fit from zero instead of adjusting the active model: only with thousands of labels ' +
        '(a few hundred labels adjust the active model; docs/authenticity.md)',
    },
    ...jsonOption('the result'),
  },
  op: 'model.train',
  toArgs: (a) => ({
    labels: labelsPath(a, true),
    name: str(a, 'name') ?? 'trained',
    seed: int(a, 'seed') ?? 42,
    from_scratch: a.values['from-scratch'] === true,
  }),
  print: printer<TrainResult>({ text: describeTraining }),
};

function describeTraining(r: TrainResult): string[] {
  const held = (r.metrics['held_out'] ?? {}) as Record<string, unknown>;
  return [
    `trained model ${r.version} (${r.name}) on ${r.matched} labelled creators`,
    ...missingLines(r),
    `held out: ROC AUC ${fixed(held['auc'], 5)}, Brier ${fixed(held['brier'])}, ECE ${fixed(held['ece'])}, ` +
      `precision at suspicious ${pct(held['precision_suspicious'])}, recall ${pct(held['recall_suspicious'])}`,
    `activate it with: cds model activate ${r.version}`,
  ];
}

/** One row of `cds model list`: flags as yes/blank, the held-out figures rounded, the training hash shortened. */
function modelRow(r: ModelSummary): Record<string, unknown> {
  return {
    version: r.version,
    name: r.name,
    active: r.active ? 'yes' : '',
    builtin: r.builtin ? 'yes' : '',
    created_at: r.created_at,
    auc: fixed(r.held_out?.['auc'], 4),
    ece: fixed(r.held_out?.['ece'], 4),
    training_sha256: r.training_sha256.slice(0, 12),
  };
}

export const modelListCommand: CliCommand = {
  name: 'model list',
  maxPositionals: 0,
  usage: 'cds model list [--json]',
  summary: 'list the authenticity models (the built-in default and the trained ones) and which is active',
  options: { ...jsonOption('the models') },
  op: 'model.list',
  toArgs: () => ({}),
  print: printer<ModelSummary[]>({
    columns: ['version', 'name', 'active', 'builtin', 'created_at', 'auc', 'ece', 'training_sha256'],
    rows: (models) => models.map(modelRow),
  }),
};

export const modelActivateCommand: CliCommand = {
  name: 'model activate',
  maxPositionals: 1,
  usage: 'cds model activate <version>',
  summary: 'make a model the active one and rescore every creator with it',
  op: 'model.activate',
  toArgs: (a) => {
    const version = a.positionals[0];
    if (!version) throw new UsageError('name the model version to activate (cds model list shows them)');
    return { version };
  },
  print: printer<{ version: string; rescored: number; seconds: number }>({
    text: (r) =>
      `model ${r.version} is active; rescored ${r.rescored.toLocaleString('en-US')} creators in ${r.seconds.toFixed(1)} s`,
  }),
};

export const modelEvalCommand: CliCommand = {
  name: 'model eval',
  maxPositionals: 0,
  usage: 'cds model eval [--labels <csv>] [--model V] [--json]',
  summary: 'evaluate a model (default: the active one) on labelled creators of the store (default: its demo labels)',
  options: {
    labels: { type: 'string', help: `${LABELS_CSV} (default: the demo labels)` },
    model: { type: 'string', help: 'the model version (default: the active model)' },
    ...jsonOption('the figures'),
  },
  op: 'model.eval',
  toArgs: (a) => ({ labels: labelsPath(a, false), model: str(a, 'model') ?? null }),
  print: printer<EvalResult>({
    text: (r) => [`model ${r.model_version} on ${r.labels}`, ...missingLines(r), ...formatReport(r.report)],
  }),
};

export const modelLabelsCommand: CliCommand = {
  name: 'model labels',
  maxPositionals: 0,
  usage: 'cds model labels [--out FILE]',
  summary: "print (or write) the demo world's labels as a CSV that --labels reads",
  options: { out: { type: 'string', help: 'write the CSV to this file instead of printing it' } },
  op: 'model.labels',
  // the file is written by the CLI, where the user typed the path
  toArgs: () => ({}),
  print: printer<{ csv: string }>({
    text: ({ csv }, a) => writeLabels(csv, typeof a.values['out'] === 'string' ? a.values['out'] : undefined),
  }),
};

/** The labels CSV printed, or written to `--out` with a line saying where. */
function writeLabels(csv: string, out: string | undefined): string {
  if (!out) return csv.trimEnd();
  writeFileSync(resolve(out), csv);
  return `wrote ${csv.split('\n').length - 2} labels to ${resolve(out)}`;
}

export const modelCommands: readonly CliCommand[] = [
  modelTrainCommand,
  modelListCommand,
  modelActivateCommand,
  modelEvalCommand,
  modelLabelsCommand,
];
