import type { Migration } from './migration.js';

/** The scope that reveals contact details, and the plan that gets it. */
const CONTACTS_READ = 'contacts:read';
const CONTACTS_PLAN = 'enterprise';

/**
 * Contact reveals: the `enterprise` plan gains the `contacts:read` scope (other
 * plans keep theirs; the operator gives it to another with `cds plans set
 * --scopes`), every live owner key (one holding `keys:write`) gets it as a new
 * owner key does, and `contact_reveals` is the audit log of every reveal (what
 * `GET /v1/contacts/reveals` reads and `GET /v1/usage` counts). A reveal id is
 * `rev_` and a time-ordered suffix (data/ids.ts). The log keeps which fields were
 * revealed, never their values. PostgreSQL applies the same statements as its
 * version 101 with its `array_append` (data/state/pg-migrations.ts).
 */
export function contactRevealsStatements(listAppend: 'list_append' | 'array_append'): string[] {
  return [
    `UPDATE plans SET scopes = ${listAppend}(scopes, '${CONTACTS_READ}'), updated_at = current_timestamp
      WHERE name = '${CONTACTS_PLAN}' AND NOT list_contains(scopes, '${CONTACTS_READ}')`,
    `UPDATE api_keys SET scopes = ${listAppend}(scopes, '${CONTACTS_READ}')
      WHERE revoked_at IS NULL AND list_contains(scopes, 'keys:write') AND NOT list_contains(scopes, '${CONTACTS_READ}')`,
    `CREATE TABLE contact_reveals (
      reveal_id VARCHAR NOT NULL PRIMARY KEY,
      account_id VARCHAR NOT NULL,
      key_id VARCHAR NOT NULL,
      creator_id INTEGER NOT NULL,
      platform VARCHAR NOT NULL,
      handle VARCHAR NOT NULL,
      fields VARCHAR[] NOT NULL,
      revealed_at TIMESTAMP NOT NULL
    )`,
    'CREATE INDEX contact_reveals_account ON contact_reveals (account_id, revealed_at)',
  ];
}

export const contactReveals: Migration = {
  version: 101,
  name: 'contact reveals',
  statements: contactRevealsStatements('list_append'),
};
