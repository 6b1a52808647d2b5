import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ValidationError } from '../../../data/errors.js';
import { labelsToCsv, parseLabelsCsv, type LabelRow } from '../../../data/authenticity/labels.js';
import { selectDemoLabels } from '../../../data/authenticity/labels.queries.js';
import {
  activeModel,
  countModels,
  findModel,
  insertModel,
  listModels,
  setActiveModel,
} from '../../../data/authenticity/model-registry.queries.js';
import { evaluateModel, trainModel } from '../../../data/authenticity/model-training.js';
import { modelVersion } from '../../../data/authenticity/model-spec.js';
import { scoreCreators } from '../../../data/authenticity/precompute.js';
import { builtInModel } from '../../../data/authenticity/trained-model.js';
import { refreshPeerBenchmarks } from '../../../data/derive/peer-benchmarks.js';
import { timestampText } from '../../../data/timestamps.js';
import { serialiseLoad } from '../../../pipelines/engine/run-lock.js';
import { AdminUserError, defineOp, writerStore } from '../admin-op.js';

/** Missing handles listed back to the user; the rest are counted. */
const MISSING_LISTED = 10;

function readLabels(path: string): LabelRow[] {
  let text: Buffer;
  try {
    text = readFileSync(path);
  } catch (error) {
    throw new AdminUserError(
      `cannot read the labels file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  try {
    return parseLabelsCsv(text);
  } catch (error) {
    throw new AdminUserError(`${path}: ${(error as Error).message.replace(/^labels: /, '')}`);
  }
}

function missingSummary(missing: readonly LabelRow[]): { missing: number; missing_listed: string[] } {
  return {
    missing: missing.length,
    missing_listed: missing.slice(0, MISSING_LISTED).map((m) => `${m.platform}:${m.handle}`),
  };
}

export const modelTrain = defineOp({
  name: 'model.train',
  args: z.object({
    labels: z.string().min(1),
    name: z.string().min(1).max(100).default('trained'),
    seed: z.number().int().min(0).default(42),
    /** Fit from zero instead of adjusting the active model (docs/authenticity.md, "Training your own model"). */
    from_scratch: z.boolean().default(false),
  }),
  run: async (ctx, args) => {
    const store = writerStore(ctx);
    const labels = readLabels(args.labels);
    ctx.progress({ step: 'training', done: 0, total: null });
    try {
      const version = modelVersion((await countModels(store)) + 1);
      const prior = args.from_scratch ? undefined : await activeModel(store);
      const result = await trainModel(store, labels, {
        name: args.name,
        version,
        seed: args.seed,
        ...(prior ? { prior } : {}),
      });
      await insertModel(store, result.model);
      return {
        version,
        name: args.name,
        matched: result.matched,
        ...missingSummary(result.missing),
        metrics: result.model.metrics,
      };
    } catch (error) {
      if (error instanceof ValidationError) throw new AdminUserError(error.message.replace(/^labels: /, ''));
      throw error;
    }
  },
});

export const modelList = defineOp({
  name: 'model.list',
  args: z.object({}),
  run: async (ctx) => {
    const store = writerStore(ctx);
    const active = (await activeModel(store)).version;
    const builtIn = builtInModel();
    const stored = await listModels(store);
    return [{ model: builtIn, builtin: true }, ...stored.map((s) => ({ model: s.model, builtin: false }))].map(
      ({ model, builtin }) => ({
        version: model.version,
        name: model.name,
        created_at: timestampText(Date.parse(model.created_at)),
        active: model.version === active,
        builtin,
        training_sha256: model.training_sha256,
        held_out: model.metrics['held_out'] ?? null,
      }),
    );
  },
});

export const modelActivate = defineOp({
  name: 'model.activate',
  args: z.object({ version: z.string().min(1) }),
  run: async (ctx, args) => {
    const store = writerStore(ctx);
    const model = await findModel(store, args.version);
    if (!model) throw new AdminUserError(`no model ${args.version}: cds model list shows the versions`);
    const started = performance.now();
    // serialised with loads: a load scoring with the old model between the flag and the rescore would undo it
    await serialiseLoad(store, () =>
      store.transaction(async (tx) => {
        await setActiveModel(tx, model.version);
        await scoreCreators(tx, 'all', model);
        // every score may have moved: the authenticity percentiles of every peer group with them
        await refreshPeerBenchmarks(tx, 'all');
      }),
    );
    const n = Number((await store.one<{ n: number }>('SELECT count(*) AS n FROM creators'))?.n ?? 0);
    return { version: model.version, rescored: n, seconds: (performance.now() - started) / 1000 };
  },
});

export const modelEval = defineOp({
  name: 'model.eval',
  args: z.object({
    labels: z.string().min(1).nullable().default(null),
    model: z.string().min(1).nullable().default(null),
  }),
  run: async (ctx, args) => {
    const store = writerStore(ctx);
    const model = args.model ? await findModel(store, args.model) : await activeModel(store);
    if (!model) throw new AdminUserError(`no model ${args.model}: cds model list shows the versions`);
    const labels = args.labels ? readLabels(args.labels) : await selectDemoLabels(store);
    const { report, missing } = await evaluateModel(store, labels, model);
    if (report.n === 0) throw new AdminUserError('no labelled creator is in the store');
    return {
      model_version: model.version,
      labels: args.labels ?? 'the demo labels of this store',
      ...missingSummary(missing),
      report,
    };
  },
});

export const modelLabels = defineOp({
  name: 'model.labels',
  args: z.object({}),
  run: async (ctx) => ({ csv: labelsToCsv(await selectDemoLabels(writerStore(ctx))) }),
});

export const modelOps = [modelTrain, modelList, modelActivate, modelEval, modelLabels];
