import type { CreatedKey, KeySummary } from '../../data/keys/key.service.js';
import { PLANS, SCOPES } from '../../config/config.js';
import { oneOf, str, table, UsageError, type CliCommand } from '../command.js';

export const keysCreateCommand: CliCommand = {
  name: 'keys create',
  maxPositionals: 0,
  usage: 'cds keys create --account <name|acct_id> --plan <free|entry|enterprise> [--scopes a,b] [--expires 30d|ISO] [--json]',
  summary: 'create an API key (a new account name creates the account)',
  options: {
    account: { type: 'string', help: 'the account\'s name or id; a new name creates the account (required)' },
    plan: { type: 'string', help: `the account's plan: ${PLANS.join(', ')} (required)` },
    scopes: { type: 'string', help: `comma list of ${SCOPES.join(', ')} (default: all but admin)` },
    expires: { type: 'string', help: 'when the key stops working: a duration (30d, 12h, 90m) or an ISO date-time (default: never)' },
    json: { type: 'boolean', help: 'print the key as JSON' },
  },
  op: 'keys.create',
  toArgs: (a) => {
    const account = str(a, 'account');
    if (!account) throw new UsageError('--account is required');
    if (str(a, 'plan') === undefined) throw new UsageError('--plan is required');
    const plan = oneOf('plan', str(a, 'plan'), PLANS);
    const scopes = str(a, 'scopes')?.split(',').map((s) => s.trim()).filter(Boolean);
    return { account, plan, scopes, expires: str(a, 'expires') ?? null };
  },
  print: (result, a) => {
    const k = result as CreatedKey;
    if (a.values['json']) return JSON.stringify(k);
    return [`key:      ${k.key}`, `key id:   ${k.key_id}`, `account:  ${k.account_name} (${k.account_id})${k.account_created ? ' — new' : ''}`,
      `plan:     ${k.plan}`, `scopes:   ${k.scopes.join(', ')}`, `expires:  ${k.expires_at ?? 'never'}`,
      'The key is shown only now; the store keeps only its hash.'].join('\n');
  },
};

export const keysListCommand: CliCommand = {
  name: 'keys list',
  maxPositionals: 0,
  usage: 'cds keys list [--account <name|acct_id>] [--json]',
  summary: 'list API keys (never the keys themselves)',
  options: {
    account: { type: 'string', help: 'only this account\'s keys (name or id)' },
    json: { type: 'boolean', help: 'print the keys as JSON' },
  },
  op: 'keys.list',
  toArgs: (a) => ({ account: str(a, 'account') ?? null }),
  print: (result, a) => {
    const rows = result as KeySummary[];
    if (a.values['json']) return JSON.stringify(rows);
    return table(rows, ['key_id', 'key_prefix', 'account_name', 'plan', 'scopes', 'status', 'expires_at', 'created_at']);
  },
};

export const keysRevokeCommand: CliCommand = {
  name: 'keys revoke',
  maxPositionals: 1,
  usage: 'cds keys revoke <key_id>',
  summary: 'revoke a key; it stops working at once',
  op: 'keys.revoke',
  toArgs: (a) => {
    const id = a.positionals[0];
    if (!id) throw new UsageError('the key id is required');
    return { key_id: id };
  },
  print: (result) => `revoked ${(result as { key_id: string }).key_id}`,
};
