import type { Migration } from './migration.js';

/**
 * The authenticity model registry, in the analytical store so that a model
 * reaches cluster replicas with the snapshots that carry the scores it made.
 * A registry with no active row means the built-in default model
 * (data/authenticity/default-model.json). The features gain the total
 * unexplained spike gain and two growth measures. `creator_labels.pattern` names the
 * generated case (e.g. `small_spikes`, `follow_back`) so evaluations can report
 * recall per fraud pattern and false positives per legitimate one.
 */
export const authenticityModels: Migration = {
  version: 80,
  name: 'authenticity model registry and label patterns',
  statements: [
    `CREATE TABLE authenticity_models (
      version VARCHAR PRIMARY KEY,
      name VARCHAR NOT NULL,
      created_at TIMESTAMP NOT NULL,
      training_sha256 VARCHAR NOT NULL,
      feature_spec JSON NOT NULL,
      coefficients JSON NOT NULL,
      calibration JSON NOT NULL,
      metrics JSON NOT NULL,
      active BOOLEAN NOT NULL DEFAULT false
    )`,
    `ALTER TABLE creator_labels ADD COLUMN pattern VARCHAR`,
    `ALTER TABLE authenticity_features ADD COLUMN total_unexplained_gain_pct DOUBLE`,
    `ALTER TABLE authenticity_features ADD COLUMN growth_log_yr DOUBLE`,
    `ALTER TABLE authenticity_features ADD COLUMN growth_vs_engagement DOUBLE`,
  ],
};
