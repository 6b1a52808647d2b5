/*
 * The plan and scope constants: the names the `plans` table is seeded with and
 * the scopes a key may hold. Plans are data at run time (plan.service.ts reads
 * the table); these constants name the seed and the vocabulary.
 */

/**
 * The plans the `plans` table is seeded with (migration 70). Plans are data: the
 * table is what counts at run time (data/plans), this list only names the seed.
 * `free` has no API access.
 */
export const PLANS = ['free', 'entry', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

/**
 * Key scopes. A key without scopes given gets the defaults; `keys:write`
 * (managing the account's keys through the API) and `contacts:read` (revealing
 * creators' contact details, metered and audited) are held by owner keys and
 * granted to other keys only when named; `admin` only by keys the operator
 * makes. A plan's scopes cut every key's (docs/keys-and-usage.md).
 */
export const SCOPES = [
  'read',
  'verify',
  'lists:write',
  'webhooks:write',
  'exports:write',
  'keys:write',
  'contacts:read',
  'admin',
] as const;
export type Scope = (typeof SCOPES)[number];
export const DEFAULT_SCOPES: readonly Scope[] = ['read', 'verify', 'lists:write', 'webhooks:write', 'exports:write'];
/** Scopes an owner key holds besides the defaults. */
export const OWNER_SCOPES: readonly Scope[] = ['keys:write', 'contacts:read'];

export interface PlanLimits {
  requestsPerMinute: number;
  exportRows: number;
  webhookSubscriptions: number;
  /** `null` means unlimited. */
  lists: number | null;
  creatorsPerList: number;
  /** Exports queued or running at once per account; past it `POST /v1/exports` is a 403. */
  exportsInFlight: number;
  /** Bytes of unexpired export files an account may keep (the sum of its succeeded exports' `bytes`). */
  exportStorageBytes: number;
}

/**
 * The default plan limits (docs/keys-and-usage.md): the seed of the `plans` table
 * (migration 70). At run time limits are read from that table through
 * `PlanCatalogue` (data/plans), which the operator changes with `cds plans set`.
 */
export const PLAN_LIMITS: Readonly<Record<Plan, PlanLimits>> = Object.freeze({
  free: {
    requestsPerMinute: 0,
    exportRows: 0,
    webhookSubscriptions: 0,
    lists: 0,
    creatorsPerList: 0,
    exportsInFlight: 0,
    exportStorageBytes: 0,
  },
  entry: {
    requestsPerMinute: 120,
    exportRows: 10_000,
    webhookSubscriptions: 5,
    lists: 50,
    creatorsPerList: 5_000,
    exportsInFlight: 5,
    exportStorageBytes: 1024 ** 3,
  },
  enterprise: {
    requestsPerMinute: 1200,
    exportRows: 5_000_000,
    webhookSubscriptions: 100,
    lists: null,
    creatorsPerList: 100_000,
    exportsInFlight: 20,
    exportStorageBytes: 50 * 1024 ** 3,
  },
});
