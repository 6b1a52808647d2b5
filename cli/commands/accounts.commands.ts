import type { AccountView } from '../../data/plans/plan-admin.service.js';
import { UsageError, type CliCommand } from '../command.js';
import { jsonOption, printer } from '../output.js';

export const accountsListCommand: CliCommand = {
  name: 'accounts list',
  maxPositionals: 0,
  usage: 'cds accounts list [--json]',
  summary: 'every account with its plan and number of active keys',
  options: { ...jsonOption('the accounts') },
  op: 'accounts.list',
  toArgs: () => ({}),
  print: printer<AccountView[]>({ columns: ['account_id', 'name', 'plan', 'active_keys', 'created_at'] }),
};

export const accountsSetPlanCommand: CliCommand = {
  name: 'accounts set-plan',
  maxPositionals: 2,
  usage: 'cds accounts set-plan <account> <plan> [--json]',
  summary:
    'move an account (name or id) to another plan; its keys follow at once (within a second on other API processes)',
  options: { ...jsonOption('the account') },
  op: 'accounts.set-plan',
  toArgs: (a) => {
    const [account, plan] = a.positionals;
    if (!account || !plan) throw new UsageError('name the account and the plan (cds plans list shows the plans)');
    return { account, plan };
  },
  print: printer<AccountView & { previous_plan: string }>({
    text: (r) => `${r.name} (${r.account_id}): plan ${r.previous_plan} → ${r.plan}`,
  }),
};

/** `cds accounts …`. */
export const accountCommands: readonly CliCommand[] = [accountsListCommand, accountsSetPlanCommand];
