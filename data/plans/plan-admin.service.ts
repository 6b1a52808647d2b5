import { OperatorRequestError } from '../operator-errors.js';
import type { StateDb, StateQueryable } from '../state/state-db.js';
import { SCOPES } from './plans.js';
import { authChanged } from '../keys/auth-epoch.js';
import { findAccount } from '../keys/key.queries.js';
import * as q from './plan.queries.js';
import { toPlanRecord, toPlanView, type PlanView } from './plan.service.js';
import { timestampText } from '../timestamps.js';

/** An operator request on plans or accounts that cannot be done, such as an unknown plan name (see `OperatorRequestError`). */
export class PlanRequestError extends OperatorRequestError {
  override name = 'PlanRequestError';
}

/** An account as `cds accounts list` shows it. */
export interface AccountView {
  account_id: string;
  name: string;
  plan: string;
  active_keys: number;
  created_at: string;
}

/** Every plan with its limits and scopes, cheapest first (`cds plans list`). */
export async function listPlanViews(state: StateDb): Promise<PlanView[]> {
  return (await q.listPlans(state)).map((row) => toPlanView(toPlanRecord(row)));
}

/** The names of the plans, for a message that lists them. */
export async function planNames(db: StateQueryable): Promise<string[]> {
  return (await q.listPlans(db)).map((row) => row.name);
}

/** A plan that must exist; an unknown name is a usage mistake that names the plans there are. */
export async function requirePlan(db: StateQueryable, name: string): Promise<q.PlanRow> {
  const plan = await q.findPlan(db, name);
  if (plan) return plan;
  throw new PlanRequestError(`--plan must be one of ${(await planNames(db)).join(', ')}, not ${name}`, true);
}

/** Moves an account (name or id) to another plan; answers the account with its old and new plan. */
export async function setAccountPlan(
  state: StateDb,
  account: string,
  plan: string,
): Promise<AccountView & { previous_plan: string }> {
  const changed = await state.transaction(
    async (tx) => {
      await requirePlan(tx, plan);
      const found = await findAccount(tx, account);
      if (!found) throw new PlanRequestError(`no account named or with id ${account}`);
      await q.setAccountPlan(tx, found.account_id, plan);
      const row = (await q.listAccounts(tx, new Date())).find((a) => a.account_id === found.account_id);
      return { ...toAccountView({ ...found, active_keys: row?.active_keys ?? 0, plan }), previous_plan: found.plan };
    },
    { serialiseOn: `account:${account}` },
  );
  authChanged(state);
  return changed;
}

export async function listAccountViews(state: StateDb): Promise<AccountView[]> {
  return (await q.listAccounts(state, new Date())).map(toAccountView);
}

/** Changes to a plan: limits by column name, and optionally its scopes. */
export interface PlanChanges {
  limits: Partial<Pick<q.PlanInput, q.PlanLimitColumn>>;
  scopes?: readonly string[];
}

/**
 * Changes a plan's limits or scopes, or creates a plan: a new one starts with
 * every limit 0 and no scopes, so only what is given is allowed.
 */
export async function setPlan(state: StateDb, name: string, changes: PlanChanges): Promise<PlanView> {
  if (!/^[a-z][a-z0-9_-]{0,39}$/.test(name))
    throw new PlanRequestError('a plan name is 1–40 lowercase letters, digits, _ or -', true);
  const bad = (changes.scopes ?? []).filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (bad.length > 0)
    throw new PlanRequestError(`unknown scope ${bad.join(', ')}; scopes are ${SCOPES.join(', ')}`, true);
  const saved = await state.transaction(
    async (tx) => {
      const current = await q.findPlan(tx, name);
      const base: q.PlanInput = current ?? {
        name,
        requests_per_minute: 0,
        export_rows: 0,
        webhook_subscriptions: 0,
        lists: 0,
        creators_per_list: 0,
        exports_in_flight: 0,
        export_storage_bytes: 0,
        scopes: [],
      };
      const next = {
        ...base,
        ...changes.limits,
        scopes: changes.scopes ? [...new Set(changes.scopes)] : base.scopes,
        name,
      };
      await q.upsertPlan(tx, next);
      const row = await q.findPlan(tx, name);
      if (!row) throw new Error(`plan ${name} vanished while it was being saved`);
      return toPlanView(toPlanRecord(row));
    },
    { serialiseOn: `plan:${name}` },
  );
  authChanged(state);
  return saved;
}

function toAccountView(row: {
  account_id: string;
  name: string;
  plan: string;
  created_at: Date;
  active_keys: number;
}): AccountView {
  return {
    account_id: row.account_id,
    name: row.name,
    plan: row.plan,
    active_keys: Number(row.active_keys),
    created_at: timestampText(row.created_at),
  };
}
