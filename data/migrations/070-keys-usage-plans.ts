import { PLAN_LIMITS, PLANS } from '../plans/plans.js';
import { sqlString } from '../sql.js';
import type { Migration } from './migration.js';

/**
 * What every paying plan allowed when this migration was released; `free` allows
 * no scope, which is what "no API access" means. A literal, not the live scope
 * list: a scope added later reaches a plan through its own migration (101 gives
 * `contacts:read` to enterprise only), never by a fresh store seeding it here.
 */
const PAID_SCOPES: readonly string[] = [
  'read',
  'verify',
  'lists:write',
  'webhooks:write',
  'exports:write',
  'keys:write',
  'admin',
];

/** The seed rows of `plans`, as literals: constants from data/plans/plans.ts, so nothing a user typed reaches this SQL. */
function planSeed(): string {
  const rows = PLANS.map((name) => {
    const l = PLAN_LIMITS[name];
    const scopes = name === 'free' ? [] : PAID_SCOPES;
    const numbers = [
      l.requestsPerMinute,
      l.exportRows,
      l.webhookSubscriptions,
      l.lists,
      l.creatorsPerList,
      l.exportsInFlight,
      l.exportStorageBytes,
    ].map((n) => (n === null ? 'NULL' : String(Math.trunc(n))));
    const list = `ARRAY[${scopes.map(sqlString).join(', ')}]::VARCHAR[]`;
    return `(${sqlString(name)}, ${numbers.join(', ')}, ${list})`;
  });
  return `INSERT INTO plans (name, requests_per_minute, export_rows, webhook_subscriptions, lists, creators_per_list,
    exports_in_flight, export_storage_bytes, scopes) VALUES ${rows.join(',\n    ')}`;
}

/**
 * The statements of migration 70, with the one function name the two engines
 * spell differently (append to a list: DuckDB `list_append`, PostgreSQL `array_append`).
 */
export function keysUsagePlansStatements(listAppend: 'list_append' | 'array_append'): string[] {
  return [
    'ALTER TABLE api_keys ADD COLUMN name VARCHAR',
    'ALTER TABLE api_keys ADD COLUMN last_used_at TIMESTAMP',
    // a rotated key's old secret, valid until previous_expires_at (one slot: rotating again ends the earlier grace)
    'ALTER TABLE api_keys ADD COLUMN previous_key_hash VARCHAR',
    'ALTER TABLE api_keys ADD COLUMN previous_key_prefix VARCHAR',
    'ALTER TABLE api_keys ADD COLUMN previous_expires_at TIMESTAMP',
    "UPDATE api_keys SET name = 'operator key' WHERE name IS NULL",
    // each account's first live key becomes its owner key, as a first key made from now on is
    `UPDATE api_keys SET scopes = ${listAppend}(scopes, 'keys:write')
      WHERE NOT list_contains(scopes, 'keys:write') AND key_id IN (
        SELECT key_id FROM (
          SELECT key_id, row_number() OVER (PARTITION BY account_id ORDER BY created_at, key_id) AS n
          FROM api_keys WHERE revoked_at IS NULL
        ) AS firsts WHERE n = 1)`,
    'CREATE INDEX api_keys_previous_hash ON api_keys (previous_key_hash)',
    'CREATE INDEX api_keys_account ON api_keys (account_id, created_at)',
    // requests per minute, added to by every API process's flush (upsert with addition)
    `CREATE TABLE api_usage (
      account_id VARCHAR NOT NULL,
      minute TIMESTAMP NOT NULL,
      key_id VARCHAR NOT NULL,
      operation VARCHAR NOT NULL,
      status_class VARCHAR NOT NULL,
      requests BIGINT NOT NULL,
      rate_limited BIGINT NOT NULL,
      PRIMARY KEY (account_id, minute, key_id, operation, status_class)
    )`,
    `CREATE TABLE plans (
      name VARCHAR NOT NULL PRIMARY KEY,
      requests_per_minute INTEGER NOT NULL,
      export_rows BIGINT NOT NULL,
      webhook_subscriptions INTEGER NOT NULL,
      lists INTEGER,
      creators_per_list INTEGER NOT NULL,
      exports_in_flight INTEGER NOT NULL,
      export_storage_bytes BIGINT NOT NULL,
      scopes VARCHAR[] NOT NULL,
      updated_at TIMESTAMP NOT NULL DEFAULT current_timestamp
    )`,
    planSeed(),
  ];
}

/**
 * Self-service keys (names, rotation with a grace period, last use), API usage
 * counted per minute, and plans as data seeded from `PLAN_LIMITS`. PostgreSQL
 * applies the same statements as its version 70 (data/state/pg-migrations.ts).
 */
export const keysUsagePlans: Migration = {
  version: 70,
  name: 'keys, usage and plans',
  statements: keysUsagePlansStatements('list_append'),
};
