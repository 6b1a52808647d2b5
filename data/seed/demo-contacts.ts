import type { Queryable } from '../store.js';
import { sqlString } from '../sql.js';
import { PLATFORMS } from './reference-data.js';

/**
 * Contacts and linked accounts of the demo creators, from `gen` and the stored
 * creators. About 30 % have contacts — more of the big ones — some an e-mail
 * and a website, some only one. About a fifth link accounts elsewhere: every
 * creator that shares the previous creator's handle on another platform (the
 * same person's two stored accounts) links both ways, and others link one or
 * two platforms the store has no account for.
 */
export async function seedContacts(c: Queryable): Promise<void> {
  await c.run(`INSERT INTO creator_contacts (creator_id, email, website)
    WITH k AS (
      SELECT g.creator_id, g.first_name, g.last_name, ltrim(cr.handle, '@') AS name, rnd(g.creator_id, 'contact_kind') AS kind
      FROM gen g JOIN creators cr USING (creator_id)
      WHERE rnd(g.creator_id, 'contact') < 0.2 + 0.6 / (1 + exp(-1.5 * (log10(g.followers) - 5.5)))
    )
    SELECT creator_id,
      CASE WHEN kind < 0.8 THEN CASE WHEN rnd(creator_id, 'mail') < 0.5 THEN first_name || '.' || last_name || '@'
          || pick(['gmail.com', 'outlook.com', 'proton.me', 'icloud.com'], rnd(creator_id, 'mail_domain'))
        ELSE 'collabs+' || name || '@' || pick(['talentbridge.agency', 'northmgmt.com', 'creatorhouse.io'], rnd(creator_id, 'agency')) END END,
      CASE WHEN kind >= 0.55 THEN pick(['https://', 'https://www.', 'http://'], rnd(creator_id, 'scheme')) || name
        || pick(['.com', '.co', '.me', '.studio'], rnd(creator_id, 'tld')) END
    FROM k ORDER BY creator_id`);
  await c.run(`INSERT INTO linked_accounts (creator_id, linked_platform, linked_handle)
    WITH pairs AS (
      SELECT a.creator_id, b.platform AS linked_platform, b.handle AS linked_handle
      FROM creators a JOIN creators b ON b.handle = a.handle AND b.creator_id IN (a.creator_id - 1, a.creator_id + 1) AND b.platform <> a.platform
    ), other AS (
      SELECT cr.creator_id, p.platform AS linked_platform,
        CASE WHEN rnd(cr.creator_id, 'link_same') < 0.7 THEN cr.handle ELSE cr.handle || '_' || p.platform END AS linked_handle
      FROM creators cr, (SELECT unnest([${PLATFORMS.map(sqlString).join(', ')}]) AS platform) p
      WHERE rnd(cr.creator_id, 'links') < 0.12 AND p.platform <> cr.platform AND rnd(cr.creator_id, 'link.' || p.platform) < 0.4
    )
    SELECT * FROM pairs UNION SELECT * FROM other ORDER BY creator_id`);
}
