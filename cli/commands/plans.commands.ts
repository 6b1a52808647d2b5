import { SCOPES } from '../../data/plans/plans.js';
import type { PlanView } from '../../data/plans/plan.service.js';
import { PLAN_LIMIT_COLUMNS } from '../../data/plans/plan.queries.js';
import {
  commaList,
  commaListOption,
  str,
  UsageError,
  type CliCommand,
  type CliOption,
  type ParsedArgs,
} from '../command.js';
import { jsonOption, printer } from '../output.js';

const flag = (column: string): string => column.replaceAll('_', '-');

/** One row of `cds plans list`: the limits flattened beside the name. */
function planRow(plan: PlanView): Record<string, unknown> {
  return {
    name: plan.name,
    ...plan.limits,
    lists: plan.limits.lists ?? 'unlimited',
    scopes: plan.scopes.length ? plan.scopes : 'none (no API access)',
  };
}

export const plansListCommand: CliCommand = {
  name: 'plans list',
  maxPositionals: 0,
  usage: 'cds plans list [--json]',
  summary: 'every plan with its limits and the scopes its keys may use (the plans table)',
  options: { ...jsonOption('the plans') },
  op: 'plans.list',
  toArgs: () => ({}),
  print: printer<PlanView[]>({
    columns: ['name', ...PLAN_LIMIT_COLUMNS, 'scopes'],
    rows: (plans) => plans.map(planRow),
  }),
};

const limitOptions: Record<string, CliOption> = Object.fromEntries(
  PLAN_LIMIT_COLUMNS.map((c) => [
    flag(c),
    {
      type: 'string',
      help: c === 'lists' ? 'lists per account (a number, or unlimited)' : c.replaceAll('_', ' '),
    } satisfies CliOption,
  ]),
);

export const plansSetCommand: CliCommand = {
  name: 'plans set',
  maxPositionals: 1,
  usage: `cds plans set <plan> [${PLAN_LIMIT_COLUMNS.map((c) => `--${flag(c)} N`).join('] [')}] [--scopes a,b] [--json]`,
  summary:
    "change a plan's limits or scopes, or create a plan (a new one starts with every limit 0 and no scopes); " +
    'running API processes apply it within a second',
  options: {
    ...limitOptions,
    scopes: commaListOption(`${SCOPES.join(', ')} its keys may use`),
    ...jsonOption('the plan'),
  },
  op: 'plans.set',
  toArgs: (a) => {
    const plan = a.positionals[0];
    if (!plan) throw new UsageError('name the plan (cds plans list shows them)');
    const scopes = commaList(str(a, 'scopes'));
    const limits = Object.fromEntries(
      PLAN_LIMIT_COLUMNS.flatMap((c) => (str(a, flag(c)) === undefined ? [] : [[c, limitValue(a, c)]])),
    );
    if (Object.keys(limits).length === 0 && scopes === undefined)
      throw new UsageError('give at least one limit or --scopes');
    return { plan, limits, scopes };
  },
  print: printer<PlanView>({ columns: ['name', ...PLAN_LIMIT_COLUMNS, 'scopes'], rows: (plan) => [planRow(plan)] }),
};

function limitValue(a: ParsedArgs, column: string): number | null {
  const text = str(a, flag(column)) ?? '';
  if (column === 'lists' && text === 'unlimited') return null;
  const n = Number(text.replaceAll('_', ''));
  if (!Number.isSafeInteger(n) || n < 0)
    throw new UsageError(`--${flag(column)} must be a whole number ≥ 0, not ${text}`);
  return n;
}

/** `cds plans …`. */
export const planCommands: readonly CliCommand[] = [plansListCommand, plansSetCommand];
