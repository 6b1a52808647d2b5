import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContactReveal, RevealEntry } from '../../data/contacts/contact.service.js';
import { MIGRATIONS, runMigrations } from '../../data/migrations/index.js';
import { wrap } from '../../data/store.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
interface Creator extends Record<string, unknown> {
  handle: string;
  platform: string;
  creator_id: number;
}
/** Creators on one platform each: with email and website, with a website only, with nothing on record. */
let both: Creator;
let websiteOnly: Creator;
let none: Creator;

interface RevealPage {
  data: RevealEntry[];
  next_cursor: string | null;
}

beforeAll(async () => {
  t = await startTestApp({ creators: 200 });
  const singles = await t.store.all<Creator>(`SELECT handle, platform, creator_id FROM creators
    WHERE handle IN (SELECT handle FROM creators GROUP BY handle HAVING count(*) = 1) ORDER BY creator_id LIMIT 3`);
  [both, websiteOnly, none] = singles as [Creator, Creator, Creator];
  await t.store.run('DELETE FROM creator_contacts');
  await t.store.run(
    `INSERT INTO creator_contacts VALUES (?, 'team@example.com', 'https://example.com'), (?, NULL, 'https://only.example')`,
    [both.creator_id, websiteOnly.creator_id],
  );
});

afterAll(async () => {
  await t?.close();
});

const path = (c: Creator): string => `/v1/creators/${encodeURIComponent(c.handle)}/contacts`;

async function reveal(key: string, c: Creator): Promise<ContactReveal> {
  const res = await t.api(path(c), { key });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return (await res.json()) as ContactReveal;
}

async function reveals(key: string, query = ''): Promise<RevealPage> {
  const res = await t.api(`/v1/contacts/reveals${query}`, { key });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as RevealPage;
}

async function revealsCounted(key: string): Promise<number> {
  await t.app.flushUsage();
  const res = await t.api('/v1/usage', { key });
  return ((await res.json()) as { totals: { contact_reveals: number } }).totals.contact_reveals;
}

describe('GET /v1/creators/{handle}/contacts', () => {
  it('reveals an enterprise owner key the contact details, records the reveal and counts it in usage', async () => {
    const owner = await t.keyWithAccount({ plan: 'enterprise' });
    const r = await reveal(owner.key, both);
    expect(r).toMatchObject({
      handle: both.handle,
      platform: both.platform,
      email: 'team@example.com',
      website: 'https://example.com',
    });
    expect(r.reveal_id).toMatch(/^rev_[0-9a-z]+$/);
    const w = await reveal(owner.key, websiteOnly);
    expect([w.email, w.website]).toEqual([null, 'https://only.example']);
    const log = await reveals(owner.key);
    expect(log.data).toEqual([
      {
        id: w.reveal_id,
        key_id: owner.keyId,
        handle: websiteOnly.handle,
        platform: websiteOnly.platform,
        fields: ['website'],
        revealed_at: w.revealed_at,
      },
      {
        id: r.reveal_id,
        key_id: owner.keyId,
        handle: both.handle,
        platform: both.platform,
        fields: ['email', 'website'],
        revealed_at: r.revealed_at,
      },
    ]);
    expect(log.next_cursor).toBeNull();
    expect(await revealsCounted(owner.key)).toBe(2);
  });

  it('refuses an entry account, whose plan cuts contacts:read from its owner key, and records nothing', async () => {
    const entry = await t.keyWithAccount({ plan: 'entry' });
    const res = await t.api(path(both), { key: entry.key });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({
      code: 'insufficient_scope',
      required_scope: 'contacts:read',
      detail:
        'The entry plan does not include the "contacts:read" scope; ask for the account to be moved to a plan that does.',
    });
    expect((await reveals(entry.key)).data).toEqual([]);
    expect(await revealsCounted(entry.key)).toBe(0);
  });

  it('gives contacts:read to a new key only when it is named, and records the key that revealed', async () => {
    const owner = await t.keyWithAccount({ plan: 'enterprise' });
    const make = async (body: unknown): Promise<{ id: string; key: string; scopes: string[] }> => {
      const res = await t.api('/v1/keys', { key: owner.key, method: 'POST', json: body });
      expect(res.status, await res.clone().text()).toBe(201);
      return (await res.json()) as { id: string; key: string; scopes: string[] };
    };
    const plain = await make({ name: 'integration' });
    expect(plain.scopes).not.toContain('contacts:read');
    const refused = await t.api(path(both), { key: plain.key });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { detail: string }).detail).toBe(
      'This key lacks the "contacts:read" scope; create a key with it.',
    );
    const named = await make({ name: 'sales', scopes: ['read', 'contacts:read'] });
    const r = await reveal(named.key, both);
    expect((await reveals(owner.key)).data).toEqual([expect.objectContaining({ id: r.reveal_id, key_id: named.id })]);
  });

  it('answers 404 creator_not_found for an unknown creator and 404 not_found for one with no contact, counting neither', async () => {
    const owner = await t.keyWithAccount({ plan: 'enterprise' });
    const unknown = await t.api('/v1/creators/%40nobody-here-at-all/contacts', { key: owner.key });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: 'creator_not_found' });
    const empty = await t.api(path(none), { key: owner.key });
    expect(empty.status).toBe(404);
    const body = (await empty.json()) as { code: string; detail: string };
    expect(body.code).toBe('not_found');
    expect(body.detail).toContain('has no contact details on record');
    expect((await t.api(`${path(both)}?platform=myspace`, { key: owner.key })).status).toBe(400);
    expect((await reveals(owner.key)).data).toEqual([]);
    expect(await revealsCounted(owner.key)).toBe(0);
  });
});

describe('GET /v1/contacts/reveals', () => {
  it("pages the account's own reveals newest first by keyset; another account sees none of them and cannot use its cursors", async () => {
    const owner = await t.keyWithAccount({ plan: 'enterprise' });
    const ids: string[] = [];
    for (const c of [both, websiteOnly, both]) ids.push((await reveal(owner.key, c)).reveal_id);
    const first = await reveals(owner.key, '?limit=2');
    expect(first.data.map((r) => r.id)).toEqual([ids[2], ids[1]]);
    const second = await reveals(owner.key, `?limit=2&cursor=${encodeURIComponent(first.next_cursor!)}`);
    expect(second.data.map((r) => r.id)).toEqual([ids[0]]);
    expect(second.next_cursor).toBeNull();
    const other = await t.keyWithAccount({ plan: 'enterprise' });
    expect((await reveals(other.key)).data).toEqual([]);
    const foreign = await t.api(`/v1/contacts/reveals?cursor=${encodeURIComponent(first.next_cursor!)}`, {
      key: other.key,
    });
    expect(foreign.status).toBe(400);
  });
});

describe('migration 101', () => {
  it('gives contacts:read to the enterprise plan only on a fresh store', async () => {
    const plans = await t.state.all<{ name: string; scopes: string[] }>('SELECT name, scopes FROM plans ORDER BY name');
    const has = Object.fromEntries(plans.map((p) => [p.name, [...p.scopes].includes('contacts:read')]));
    expect(has).toEqual({ enterprise: true, entry: false, free: false });
  });

  it('gives contacts:read to the live owner keys of a store made by the previous release, and no other key', async () => {
    const db = await DuckDBInstance.create(':memory:');
    const c = wrap(await db.connect());
    try {
      await runMigrations(
        c,
        MIGRATIONS.filter((m) => m.version < 101),
      );
      expect(await c.one<{ s: string[] }>("SELECT scopes AS s FROM plans WHERE name = 'entry'")).toEqual({
        s: expect.not.arrayContaining(['contacts:read']) as unknown,
      });
      await c.run(`INSERT INTO api_keys (key_id, account_id, key_hash, key_prefix, scopes, revoked_at) VALUES
        ('key_owner', 'acct_1', 'h1', 'p1', ['read', 'keys:write'], NULL), ('key_plain', 'acct_1', 'h2', 'p2', ['read'], NULL),
        ('key_gone', 'acct_1', 'h3', 'p3', ['read', 'keys:write'], TIMESTAMP '2026-01-01')`);
      expect(await runMigrations(c)).toContain(101);
      const keys = await c.all<{ key_id: string; scopes: string[] }>(
        'SELECT key_id, scopes FROM api_keys ORDER BY key_id',
      );
      expect(keys.map((k) => [k.key_id, [...k.scopes]])).toEqual([
        ['key_gone', ['read', 'keys:write']],
        ['key_owner', ['read', 'keys:write', 'contacts:read']],
        ['key_plain', ['read']],
      ]);
      const plans = await c.all<{ name: string; scopes: string[] }>('SELECT name, scopes FROM plans ORDER BY name');
      expect(plans.map((p) => [p.name, [...p.scopes].includes('contacts:read')])).toEqual([
        ['enterprise', true],
        ['entry', false],
        ['free', false],
      ]);
    } finally {
      db.closeSync();
    }
  });
});
