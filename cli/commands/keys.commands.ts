import type { CreatedKey, KeySummary } from '../../data/keys/key.service.js';
import { PLANS, SCOPES } from '../../data/plans/plans.js';
import { commaList, commaListOption, str, UsageError, type CliCommand } from '../command.js';
import { jsonOption, printer } from '../output.js';

export const keysCreateCommand: CliCommand = {
  name: 'keys create',
  maxPositionals: 0,
  usage:
    'cds keys create --account <name|acct_id> [--plan <plan>] [--name <label>] [--scopes a,b] [--expires 30d|ISO] [--json]',
  summary: 'create an API key (a new account name creates the account; its first key is the owner key)',
  options: {
    account: { type: 'string', help: "the account's name or id; a new name creates the account (required)" },
    plan: {
      type: 'string',
      help:
        `a new account's plan (${PLANS.join(', ')} or any in cds plans list; default entry); for an existing account it must be ` +
        'the one it is on (cds accounts set-plan changes plans)',
    },
    name: {
      type: 'string',
      help: 'a label for the key (default: owner key for a new account, operator key otherwise)',
    },
    scopes: commaListOption(
      `${SCOPES.join(', ')} (default: all but keys:write, contacts:read and admin; a new account's first key also keys:write and contacts:read)`,
    ),
    expires: {
      type: 'string',
      help: 'when the key stops working: a duration (30d, 12h, 90m) or an ISO date-time (default: never)',
    },
    ...jsonOption('the key'),
  },
  op: 'keys.create',
  toArgs: (a) => {
    const account = str(a, 'account');
    if (!account) throw new UsageError('--account is required');
    return {
      account,
      plan: str(a, 'plan') ?? null,
      name: str(a, 'name') ?? null,
      scopes: commaList(str(a, 'scopes')),
      expires: str(a, 'expires') ?? null,
    };
  },
  print: printer<CreatedKey>({
    text: (k) => [
      `key:      ${k.key}`,
      `key id:   ${k.key_id} (${k.name})`,
      `account:  ${k.account_name} (${k.account_id})${k.account_created ? ' — new' : ''}`,
      `plan:     ${k.plan}`,
      `scopes:   ${k.scopes.join(', ')}${k.owner ? " (owner key: may manage the account's keys through the API)" : ''}`,
      `expires:  ${k.expires_at ?? 'never'}`,
      'The key is shown only now; the store keeps only its hash.',
    ],
  }),
};

export const keysListCommand: CliCommand = {
  name: 'keys list',
  maxPositionals: 0,
  usage: 'cds keys list [--account <name|acct_id>] [--json]',
  summary: 'list API keys (never the keys themselves)',
  options: {
    account: { type: 'string', help: "only this account's keys (name or id)" },
    ...jsonOption('the keys'),
  },
  op: 'keys.list',
  toArgs: (a) => ({ account: str(a, 'account') ?? null }),
  print: printer<KeySummary[]>({
    columns: [
      'key_id',
      'name',
      'key_prefix',
      'account_name',
      'plan',
      'scopes',
      'status',
      'expires_at',
      'last_used_at',
      'created_at',
    ],
  }),
};

export const keysRevokeCommand: CliCommand = {
  name: 'keys revoke',
  maxPositionals: 1,
  usage: 'cds keys revoke <key_id> [--json]',
  summary: 'revoke a key; it stops working at once',
  options: { ...jsonOption('the revoked key') },
  op: 'keys.revoke',
  toArgs: (a) => {
    const id = a.positionals[0];
    if (!id) throw new UsageError('the key id is required');
    return { key_id: id };
  },
  print: printer<{ key_id: string }>({ text: (r) => `revoked ${r.key_id}` }),
};
