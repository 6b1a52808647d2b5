import { PLAN_LIMITS, type PlanLimits } from './plans.js';
import { authEpoch } from '../keys/auth-epoch.js';
import type { StateQueryable } from '../state/state-db.js';
import * as q from './plan.queries.js';

/** A plan as the service uses it: its limits and the scopes its keys may use. */
export interface PlanRecord {
  name: string;
  limits: Readonly<PlanLimits>;
  /** Scopes a key on this plan can use (the key's own scopes are cut to these); none means no API access. */
  scopes: readonly string[];
}

/** A plan as the API and the CLI show it (`GET /v1/usage`, `cds plans list`). */
export interface PlanView {
  name: string;
  /** The `plans` row's limit columns, named as the table names them. */
  limits: Omit<q.PlanRow, 'name' | 'scopes' | 'updated_at'>;
  scopes: string[];
}

/** Limits of a plan that is not in the table: nothing is allowed, as on the `free` plan's defaults (all zero). */
export const NO_LIMITS: Readonly<PlanLimits> = PLAN_LIMITS.free;

/** Limit changes layered over the table (tests and benchmarks lower or raise one limit without touching shared state). */
export type PlanOverrides = Readonly<Record<string, Partial<PlanLimits>>>;

export interface PlanCatalogueOptions {
  /** How long a read of the table serves before the next request reads it again. */
  ttlMs?: number;
  overrides?: PlanOverrides;
  now?: () => number;
}

/** How stale a process's view of `plans` may be: a change made elsewhere (another process, `cds plans set`) shows within this. */
export const PLAN_CACHE_TTL_MS = 1_000;

/**
 * The one way the service reads plan limits: the whole `plans` table (a few
 * rows) cached for `PLAN_CACHE_TTL_MS`, so every process of a cluster sees a
 * change within a second and no request waits on the database for its plan.
 * A change made in this process (`setPlan`, `setAccountPlan`, through the auth
 * epoch) or `invalidate()` shows at once.
 */
export class PlanCatalogue {
  private plans: ReadonlyMap<string, PlanRecord> | null = null;
  private loadedAt = 0;
  private loadedEpoch = -1;
  private loading: Promise<ReadonlyMap<string, PlanRecord>> | null = null;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly state: StateQueryable,
    private readonly options: PlanCatalogueOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? PLAN_CACHE_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  /** The plan of that name, or undefined when the table has none. */
  async get(name: string): Promise<PlanRecord | undefined> {
    return (await this.current()).get(name);
  }

  /** The limits of a plan; a plan missing from the table allows nothing. */
  async limits(name: string): Promise<Readonly<PlanLimits>> {
    return (await this.get(name))?.limits ?? NO_LIMITS;
  }

  /** Every plan, cheapest first. */
  async list(): Promise<PlanRecord[]> {
    return [...(await this.current()).values()];
  }

  /** Forget the cached table (after this process changed it). */
  invalidate(): void {
    this.plans = null;
  }

  private async current(): Promise<ReadonlyMap<string, PlanRecord>> {
    if (this.plans && this.now() - this.loadedAt < this.ttlMs && this.loadedEpoch === authEpoch(this.state))
      return this.plans;
    this.loading ??= this.load().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private async load(): Promise<ReadonlyMap<string, PlanRecord>> {
    const startedAt = this.now();
    const epoch = authEpoch(this.state);
    const rows = await q.listPlans(this.state);
    const plans = new Map(
      rows.map((row) => {
        const record = toPlanRecord(row);
        const override = this.options.overrides?.[row.name];
        return [
          row.name,
          override ? { ...record, limits: Object.freeze({ ...record.limits, ...override }) } : record,
        ] as const;
      }),
    );
    this.plans = plans;
    this.loadedAt = startedAt;
    this.loadedEpoch = epoch;
    return plans;
  }
}

/** A `plans` row as a `PlanRecord`. */
export function toPlanRecord(row: q.PlanRow): PlanRecord {
  return {
    name: row.name,
    limits: Object.freeze({
      requestsPerMinute: Number(row.requests_per_minute),
      exportRows: Number(row.export_rows),
      webhookSubscriptions: Number(row.webhook_subscriptions),
      lists: row.lists === null ? null : Number(row.lists),
      creatorsPerList: Number(row.creators_per_list),
      exportsInFlight: Number(row.exports_in_flight),
      exportStorageBytes: Number(row.export_storage_bytes),
    }),
    scopes: Object.freeze([...row.scopes]),
  };
}

/** A plan in the snake_case shape of the API and `--json` output. */
export function toPlanView(plan: PlanRecord): PlanView {
  const l = plan.limits;
  return {
    name: plan.name,
    limits: {
      requests_per_minute: l.requestsPerMinute,
      export_rows: l.exportRows,
      webhook_subscriptions: l.webhookSubscriptions,
      lists: l.lists,
      creators_per_list: l.creatorsPerList,
      exports_in_flight: l.exportsInFlight,
      export_storage_bytes: l.exportStorageBytes,
    },
    scopes: [...plan.scopes],
  };
}
