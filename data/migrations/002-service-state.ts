import type { Migration } from './migration.js';

/** The service's own state: accounts and keys, lists, webhooks and their outbox, exports, runs. */
export const serviceState: Migration = {
  version: 2,
  name: 'service state',
  statements: [
    `CREATE TABLE accounts (
      account_id VARCHAR NOT NULL PRIMARY KEY,
      name VARCHAR NOT NULL UNIQUE,
      plan VARCHAR NOT NULL,
      created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
    )`,
    `CREATE TABLE api_keys (
      key_id VARCHAR NOT NULL PRIMARY KEY,
      account_id VARCHAR NOT NULL,
      key_hash VARCHAR NOT NULL UNIQUE,
      key_prefix VARCHAR NOT NULL,
      scopes VARCHAR[] NOT NULL,
      created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
      expires_at TIMESTAMP,
      revoked_at TIMESTAMP
    )`,
    `CREATE TABLE lists (
      list_id VARCHAR NOT NULL PRIMARY KEY,
      account_id VARCHAR NOT NULL,
      name VARCHAR NOT NULL,
      description VARCHAR,
      created_at TIMESTAMP NOT NULL,
      updated_at TIMESTAMP NOT NULL
    )`,
    `CREATE TABLE list_members (
      list_id VARCHAR NOT NULL,
      creator_id INTEGER NOT NULL,
      added_at TIMESTAMP NOT NULL,
      PRIMARY KEY (list_id, creator_id)
    )`,
    `CREATE TABLE webhook_subscriptions (
      webhook_id VARCHAR NOT NULL PRIMARY KEY,
      account_id VARCHAR NOT NULL,
      url VARCHAR NOT NULL,
      events VARCHAR[] NOT NULL,
      description VARCHAR,
      filter JSON,
      status VARCHAR NOT NULL DEFAULT 'enabled',
      disabled_reason VARCHAR,
      secret VARCHAR NOT NULL,
      previous_secret VARCHAR,
      previous_secret_expires_at TIMESTAMP,
      failing_since TIMESTAMP,
      created_at TIMESTAMP NOT NULL,
      updated_at TIMESTAMP NOT NULL
    )`,
    `CREATE SEQUENCE event_seq START 1`,
    `CREATE TABLE events (
      event_id VARCHAR NOT NULL PRIMARY KEY,
      seq BIGINT NOT NULL DEFAULT nextval('event_seq'),
      type VARCHAR NOT NULL,
      account_id VARCHAR,
      creator_id INTEGER,
      campaign_id VARCHAR,
      payload JSON NOT NULL,
      created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
      fanned_out_at TIMESTAMP
    )`,
    `CREATE TABLE deliveries (
      delivery_id VARCHAR NOT NULL PRIMARY KEY,
      event_id VARCHAR NOT NULL,
      webhook_id VARCHAR NOT NULL,
      status VARCHAR NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_at TIMESTAMP,
      last_status_code INTEGER,
      last_error VARCHAR,
      created_at TIMESTAMP NOT NULL,
      updated_at TIMESTAMP NOT NULL
    )`,
    `CREATE TABLE delivery_attempts (
      delivery_id VARCHAR NOT NULL,
      attempt INTEGER NOT NULL,
      started_at TIMESTAMP NOT NULL,
      status_code INTEGER,
      latency_ms DOUBLE,
      error VARCHAR,
      PRIMARY KEY (delivery_id, attempt)
    )`,
    `CREATE TABLE exports (
      export_id VARCHAR NOT NULL PRIMARY KEY,
      account_id VARCHAR NOT NULL,
      source JSON NOT NULL,
      format VARCHAR NOT NULL,
      fields VARCHAR[],
      status VARCHAR NOT NULL,
      progress INTEGER NOT NULL DEFAULT 0,
      row_count BIGINT,
      bytes BIGINT,
      sha256 VARCHAR,
      file_name VARCHAR,
      error VARCHAR,
      created_at TIMESTAMP NOT NULL,
      started_at TIMESTAMP,
      finished_at TIMESTAMP,
      expires_at TIMESTAMP
    )`,
    `CREATE TABLE pipeline_runs (
      run_id VARCHAR NOT NULL PRIMARY KEY,
      kind VARCHAR NOT NULL DEFAULT 'pipeline',
      pipeline VARCHAR NOT NULL,
      source VARCHAR,
      started_at TIMESTAMP NOT NULL,
      finished_at TIMESTAMP,
      rows_read BIGINT NOT NULL DEFAULT 0,
      rows_loaded BIGINT NOT NULL DEFAULT 0,
      rows_rejected BIGINT NOT NULL DEFAULT 0,
      rows_changed BIGINT NOT NULL DEFAULT 0,
      events_emitted BIGINT NOT NULL DEFAULT 0,
      status VARCHAR NOT NULL,
      error VARCHAR
    )`,
    `CREATE TABLE pipeline_cursors (
      pipeline VARCHAR NOT NULL PRIMARY KEY,
      cursor_value VARCHAR,
      updated_at TIMESTAMP NOT NULL
    )`,
    `CREATE TABLE ingested_files (
      checksum VARCHAR NOT NULL,
      pipeline VARCHAR NOT NULL,
      file VARCHAR NOT NULL,
      run_id VARCHAR NOT NULL,
      ingested_at TIMESTAMP NOT NULL,
      PRIMARY KEY (pipeline, checksum)
    )`,
    `CREATE SEQUENCE quarantine_seq START 1`,
    `CREATE TABLE quarantine (
      quarantine_id BIGINT NOT NULL DEFAULT nextval('quarantine_seq'),
      run_id VARCHAR NOT NULL,
      pipeline VARCHAR NOT NULL,
      file VARCHAR,
      line BIGINT,
      column_name VARCHAR,
      reason VARCHAR NOT NULL,
      raw JSON,
      created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
    )`,
    `CREATE TABLE verifications (
      verification_id VARCHAR NOT NULL PRIMARY KEY,
      account_id VARCHAR NOT NULL,
      creator_id INTEGER NOT NULL,
      platform VARCHAR NOT NULL,
      handle VARCHAR NOT NULL,
      authenticity_score DOUBLE NOT NULL,
      verdict VARCHAR NOT NULL,
      model_version VARCHAR NOT NULL,
      result JSON NOT NULL,
      checked_at TIMESTAMP NOT NULL
    )`,
    `CREATE TABLE idempotency_keys (
      account_id VARCHAR NOT NULL,
      idempotency_key VARCHAR NOT NULL,
      method VARCHAR NOT NULL,
      path VARCHAR NOT NULL,
      body_hash VARCHAR NOT NULL,
      status_code INTEGER NOT NULL,
      response_body VARCHAR,
      response_headers JSON,
      created_at TIMESTAMP NOT NULL,
      PRIMARY KEY (account_id, idempotency_key)
    )`,
    `CREATE TABLE sync_state (
      destination VARCHAR NOT NULL,
      table_name VARCHAR NOT NULL,
      watermark VARCHAR,
      updated_at TIMESTAMP NOT NULL,
      PRIMARY KEY (destination, table_name)
    )`,
  ],
};
