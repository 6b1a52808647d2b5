import type { StateQueryable } from '../state/state-db.js';

/** One row of `plans` (a type alias, so it is a `Row`). */
export type PlanRow = {
  name: string;
  requests_per_minute: number;
  export_rows: number;
  webhook_subscriptions: number;
  lists: number | null;
  creators_per_list: number;
  exports_in_flight: number;
  export_storage_bytes: number;
  scopes: string[];
  updated_at: Date;
};

/** The limit columns, in the order `cds plans list` shows them. */
export const PLAN_LIMIT_COLUMNS = [
  'requests_per_minute',
  'export_rows',
  'webhook_subscriptions',
  'lists',
  'creators_per_list',
  'exports_in_flight',
  'export_storage_bytes',
] as const;
export type PlanLimitColumn = (typeof PLAN_LIMIT_COLUMNS)[number];

// BIGINT columns read as numbers on both engines (limits stay far below 2^53)
const COLUMNS = `name, requests_per_minute, export_rows::FLOAT8 AS export_rows, webhook_subscriptions, lists, creators_per_list,
  exports_in_flight, export_storage_bytes::FLOAT8 AS export_storage_bytes, scopes, updated_at`;

/** Every plan, cheapest first (by requests per minute, then name). */
export function listPlans(db: StateQueryable): Promise<PlanRow[]> {
  return db.all<PlanRow>(`SELECT ${COLUMNS} FROM plans ORDER BY requests_per_minute, name`);
}

export function findPlan(db: StateQueryable, name: string): Promise<PlanRow | undefined> {
  return db.one<PlanRow>(`SELECT ${COLUMNS} FROM plans WHERE name = ?`, [name]);
}

/** Inserts or replaces a plan's limits and scopes. */
export type PlanInput = Pick<PlanRow, 'name' | PlanLimitColumn | 'scopes'>;

export async function upsertPlan(db: StateQueryable, plan: PlanInput): Promise<void> {
  await db.run(
    `INSERT INTO plans (name, requests_per_minute, export_rows, webhook_subscriptions, lists, creators_per_list,
      exports_in_flight, export_storage_bytes, scopes, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, current_timestamp)
    ON CONFLICT (name) DO UPDATE SET requests_per_minute = EXCLUDED.requests_per_minute, export_rows = EXCLUDED.export_rows,
      webhook_subscriptions = EXCLUDED.webhook_subscriptions, lists = EXCLUDED.lists, creators_per_list = EXCLUDED.creators_per_list,
      exports_in_flight = EXCLUDED.exports_in_flight, export_storage_bytes = EXCLUDED.export_storage_bytes,
      scopes = EXCLUDED.scopes, updated_at = EXCLUDED.updated_at`,
    [
      plan.name,
      plan.requests_per_minute,
      plan.export_rows,
      plan.webhook_subscriptions,
      plan.lists,
      plan.creators_per_list,
      plan.exports_in_flight,
      plan.export_storage_bytes,
      plan.scopes,
    ],
  );
}

/** Accounts with their plan and key counts, oldest first (`cds accounts list`). */
export interface AccountListRow extends Record<string, unknown> {
  account_id: string;
  name: string;
  plan: string;
  created_at: Date;
  active_keys: number;
}

export function listAccounts(db: StateQueryable, now: Date): Promise<AccountListRow[]> {
  return db.all<AccountListRow>(
    `SELECT a.account_id, a.name, a.plan, a.created_at,
      (SELECT count(*) FROM api_keys k WHERE k.account_id = a.account_id AND k.revoked_at IS NULL
        AND (k.expires_at IS NULL OR k.expires_at > ?::TIMESTAMP))::INTEGER AS active_keys
    FROM accounts a ORDER BY a.created_at, a.account_id`,
    [now.toISOString()],
  );
}

export async function setAccountPlan(db: StateQueryable, accountId: string, plan: string): Promise<void> {
  await db.run('UPDATE accounts SET plan = ? WHERE account_id = ?', [plan, accountId]);
}
