import type { SqlRunner } from '../state/state-db.js';

import { timestampSql } from '../timestamps.js';
import { builtInModel, parseModel, type TrainedModel } from './trained-model.js';

interface ModelRow extends Record<string, unknown> {
  version: string;
  name: string;
  created_at: string;
  training_sha256: string;
  feature_spec: string;
  coefficients: string;
  calibration: string;
  metrics: string;
  active: boolean;
}

const COLUMNS = `version, name, ${timestampSql('created_at')} AS created_at, training_sha256,
  feature_spec::VARCHAR AS feature_spec, coefficients::VARCHAR AS coefficients, calibration::VARCHAR AS calibration,
  metrics::VARCHAR AS metrics, active`;

function toModel(r: ModelRow): TrainedModel {
  return parseModel({
    version: r.version,
    name: r.name,
    created_at: r.created_at,
    training_sha256: r.training_sha256,
    feature_spec: JSON.parse(r.feature_spec),
    coefficients: JSON.parse(r.coefficients),
    calibration: JSON.parse(r.calibration),
    metrics: JSON.parse(r.metrics),
  });
}

/** Stores a trained model, inactive. */
export async function insertModel(db: SqlRunner, m: TrainedModel): Promise<void> {
  await db.run(
    `INSERT INTO authenticity_models (version, name, created_at, training_sha256, feature_spec, coefficients,
      calibration, metrics, active) VALUES (?, ?, ?::TIMESTAMP, ?, ?::JSON, ?::JSON, ?::JSON, ?::JSON, false)`,
    [
      m.version,
      m.name,
      m.created_at.replace('T', ' ').replace('Z', ''),
      m.training_sha256,
      JSON.stringify(m.feature_spec),
      JSON.stringify(m.coefficients),
      JSON.stringify(m.calibration),
      JSON.stringify(m.metrics),
    ],
  );
}

/** How many models the registry holds (numbers the next version). */
export async function countModels(db: SqlRunner): Promise<number> {
  return Number((await db.one<{ n: number }>('SELECT count(*) AS n FROM authenticity_models'))?.n ?? 0);
}

/** The registry's models with their active flag, oldest first. */
export async function listModels(db: SqlRunner): Promise<Array<{ model: TrainedModel; active: boolean }>> {
  const rows = await db.all<ModelRow>(`SELECT ${COLUMNS} FROM authenticity_models ORDER BY created_at, version`);
  return rows.map((r) => ({ model: toModel(r), active: r.active }));
}

/** One stored model, or the built-in default by its version; undefined when neither. */
export async function findModel(db: SqlRunner, version: string): Promise<TrainedModel | undefined> {
  if (version === builtInModel().version) return builtInModel();
  const row = await db.one<ModelRow>(`SELECT ${COLUMNS} FROM authenticity_models WHERE version = ?`, [version]);
  return row ? toModel(row) : undefined;
}

/** Makes `version` the active model (the built-in default's version clears every flag). */
export async function setActiveModel(db: SqlRunner, version: string): Promise<void> {
  await db.run('UPDATE authenticity_models SET active = (version = ?) WHERE active OR version = ?', [version, version]);
}

const parsed = new Map<string, TrainedModel>();

/**
 * The model scores are made with: the registry's active one, else the built-in
 * default. One small read per call; a version's parsed model is kept, so a
 * check does not re-parse the JSON.
 */
export async function activeModel(db: SqlRunner): Promise<TrainedModel> {
  const head = await db.one<{ version: string; key: string }>(`SELECT version,
      version || '|' || training_sha256 || '|' || epoch_us(created_at) AS key FROM authenticity_models WHERE active LIMIT 1`);
  if (!head) return builtInModel();
  // versions number a store's own registry: two stores may both have a 2.0.1, so the key adds hash and time
  const cached = parsed.get(head.key);
  if (cached) return cached;
  const model = await findModel(db, head.version);
  if (!model) return builtInModel();
  parsed.set(head.key, model);
  return model;
}
