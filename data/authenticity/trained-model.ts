import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../config/config.js';
import { z } from 'zod';
import { KNOWN_FEATURE_SPECS, TERMS } from './model-spec.js';

const Finite = z.number().finite();

/** What a stored model says about itself: figures on its held-out calibration split and where they came from. */
export const ModelMetricsSchema = z.record(z.string(), z.unknown());

/** A trained authenticity model as stored in the registry and in default-model.json. */
export const TrainedModelSchema = z.object({
  version: z.string().min(1).max(100),
  name: z.string().min(1).max(100),
  created_at: z.string(),
  training_sha256: z.string(),
  feature_spec: z.object({ version: z.enum(KNOWN_FEATURE_SPECS), terms: z.array(z.string()) }),
  coefficients: z.object({ intercept: Finite, weights: z.record(z.string(), Finite.min(0)) }),
  calibration: z.object({
    method: z.literal('platt'),
    a: Finite.positive(),
    b: Finite,
    /** The fake share assumed of a fraudulent account with no stronger evidence (fake_followers_pct). */
    fake_share: Finite.min(0).max(1),
  }),
  metrics: ModelMetricsSchema,
});

export type TrainedModel = z.infer<typeof TrainedModelSchema>;

/** The weight of each term, in TERMS order (0 for a term the model does not know). */
export function weightVector(model: TrainedModel): number[] {
  return TERMS.map((t) => model.coefficients.weights[t.name] ?? 0);
}

/** Parses a model (registry row or file), naming what is wrong. */
export function parseModel(raw: unknown): TrainedModel {
  return TrainedModelSchema.parse(raw);
}

let defaultModel: TrainedModel | undefined;

/** From the project root, not this module's URL: the service also runs bundled into dist/ (bin/bundle.mjs). */
export const DEFAULT_MODEL_FILE = join(PROJECT_ROOT, 'data/authenticity/default-model.json');

/**
 * The model a store uses while no registry model is active: trained on the demo
 * world's labels (`npm run model:default` writes it; see docs/authenticity.md).
 */
export function builtInModel(): TrainedModel {
  defaultModel ??= parseModel(JSON.parse(readFileSync(DEFAULT_MODEL_FILE, 'utf8')));
  return defaultModel;
}
