import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKeyView as KeyBody, NewKeyView } from '../../data/keys/account-keys.service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t.close();
});

/** An account with its owner key (the first key the operator makes: defaults plus keys:write). */
async function ownerKey(): Promise<{ key: string; accountId: string; keyId: string }> {
  return t.keyWithAccount();
}

async function createKey(key: string, body: unknown): Promise<Response> {
  return t.api('/v1/keys', { key, method: 'POST', json: body });
}

async function created(key: string, body: unknown): Promise<NewKeyView> {
  const res = await createKey(key, body);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as NewKeyView;
}

describe('POST /v1/keys', () => {
  it("creates a key shown once with no-store, the caller's scopes minus keys:write and admin, and it works at once", async () => {
    const owner = await t.keyWithAccount({ scopes: ['read', 'verify', 'keys:write', 'admin'] });
    const res = await createKey(owner.key, { name: 'ci deploy' });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as NewKeyView;
    expect(body).toMatchObject({
      name: 'ci deploy',
      scopes: ['read', 'verify'],
      owner: false,
      status: 'active',
      expires_at: null,
      last_used_at: null,
      rotation: null,
    });
    expect(body.id).toMatch(/^key_/);
    expect(body.key).toMatch(/^cds_[0-9A-Za-z]{40}$/);
    expect(body.key.startsWith(body.key_prefix)).toBe(true);
    expect((await t.api('/v1/meta', { key: body.key })).status).toBe(200);
    const account = (await (await t.api('/v1/account', { key: body.key })).json()) as { account_id: string };
    expect(account.account_id).toBe(owner.accountId);
  });

  it('refuses a scope the caller lacks (403 naming it), admin always, and an unknown scope name (400)', async () => {
    const owner = await t.keyWithAccount({ scopes: ['read', 'keys:write', 'admin'] });
    const lacking = await createKey(owner.key, { name: 'x', scopes: ['read', 'verify'] });
    expect(lacking.status).toBe(403);
    expect(await lacking.json()).toMatchObject({ code: 'insufficient_scope', required_scope: 'verify' });
    const admin = await createKey(owner.key, { name: 'x', scopes: ['admin'] });
    expect(admin.status).toBe(403);
    expect(await admin.json()).toMatchObject({ code: 'insufficient_scope', required_scope: 'admin' });
    const unknown = await createKey(owner.key, { name: 'x', scopes: ['read', 'superuser'] });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { errors: Array<{ field: string }> }).errors[0]?.field).toBe('scopes.1');
  });

  it('grants keys:write only from a key that has it, and the new key is then an owner key', async () => {
    const owner = await ownerKey();
    const second = await created(owner.key, { name: 'second owner', scopes: ['read', 'keys:write'] });
    expect(second.owner).toBe(true);
    const plain = await created(owner.key, { name: 'plain', scopes: ['read'] });
    expect((await t.api('/v1/keys', { key: plain.key })).status).toBe(403);
  });

  it('grants contacts:read only by name and only within the plan: an entry owner key cannot, an enterprise one can', async () => {
    const entry = await ownerKey();
    const cut = await createKey(entry.key, { name: 'sales', scopes: ['read', 'contacts:read'] });
    expect(cut.status).toBe(403);
    expect(await cut.json()).toMatchObject({ code: 'insufficient_scope', required_scope: 'contacts:read' });
    const enterprise = await t.keyWithAccount({ plan: 'enterprise' });
    const own = (await (await t.api('/v1/account', { key: enterprise.key })).json()) as { key: { scopes: string[] } };
    expect(own.key.scopes).toEqual(expect.arrayContaining(['keys:write', 'contacts:read']));
    expect((await created(enterprise.key, { name: 'default' })).scopes).not.toContain('contacts:read');
    expect((await created(enterprise.key, { name: 'sales', scopes: ['read', 'contacts:read'] })).scopes).toEqual([
      'contacts:read',
      'read',
    ]);
  });

  it('takes an expiry in the future and refuses one in the past', async () => {
    const owner = await ownerKey();
    const at = new Date(Date.now() + 3_600_000).toISOString();
    expect((await created(owner.key, { name: 'temp', expires_at: at })).expires_at).toBe(at);
    const past = await createKey(owner.key, { name: 'old', expires_at: '2020-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(await past.json()).toMatchObject({ code: 'invalid_body' });
    // shaped like RFC 3339 but no real time (hour 77): a 400, not the 500 the fuzz found
    const impossible = await createKey(owner.key, { name: 'odd', expires_at: '7890-01-04T77:43:32+06:04' });
    expect(impossible.status).toBe(400);
    expect(await impossible.json()).toMatchObject({ code: 'invalid_body', errors: [{ field: 'expires_at' }] });
  });
});

describe('GET /v1/keys', () => {
  it("lists only the caller's account's keys, never a secret, in pages", async () => {
    const a = await ownerKey();
    const b = await ownerKey();
    const extra = await created(a.key, { name: 'extra' });
    await created(b.key, { name: 'b only' });
    const first = (await (await t.api('/v1/keys?limit=1', { key: a.key })).json()) as {
      data: KeyBody[];
      next_cursor: string | null;
    };
    expect(first.data.map((k) => k.id)).toEqual([a.keyId]);
    expect(first.data[0]?.owner).toBe(true);
    const rest = (await (
      await t.api(`/v1/keys?limit=5&cursor=${encodeURIComponent(first.next_cursor ?? '')}`, { key: a.key })
    ).json()) as { data: KeyBody[]; next_cursor: string | null };
    expect(rest.data.map((k) => k.id)).toEqual([extra.id]);
    expect(rest.next_cursor).toBeNull();
    const text = JSON.stringify([first, rest]);
    expect(text).not.toContain(extra.key);
    expect(text).not.toMatch(/hash/);
  });
});

describe('DELETE /v1/keys/{id}', () => {
  it("another account's key or an unknown id is a 404 for list, delete and rotate alike", async () => {
    const a = await ownerKey();
    const b = await ownerKey();
    for (const [method, path] of [
      ['DELETE', `/v1/keys/${b.keyId}`],
      ['POST', `/v1/keys/${b.keyId}/rotate`],
      ['DELETE', '/v1/keys/key_nope'],
    ]) {
      const res = await t.api(path as string, {
        key: a.key,
        method: method as string,
        ...(method === 'POST' ? { json: {} } : {}),
      });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(await res.json()).toMatchObject({ code: 'not_found' });
    }
    expect((await t.api('/v1/meta', { key: b.key })).status).toBe(200);
  });

  it('revokes a key: the next request with it is a 401', async () => {
    const owner = await ownerKey();
    const other = await created(owner.key, { name: 'to revoke' });
    expect((await t.api('/v1/meta', { key: other.key })).status).toBe(200);
    expect((await t.api(`/v1/keys/${other.id}`, { key: owner.key, method: 'DELETE' })).status).toBe(204);
    expect((await t.api('/v1/meta', { key: other.key })).status).toBe(401);
    const listed = (await (await t.api('/v1/keys', { key: owner.key })).json()) as { data: KeyBody[] };
    expect(listed.data.find((k) => k.id === other.id)?.status).toBe('revoked');
  });

  it('refuses to revoke the last active owner key (409 saying why); with a second owner, a key may revoke itself', async () => {
    const owner = await ownerKey();
    const last = await t.api(`/v1/keys/${owner.keyId}`, { key: owner.key, method: 'DELETE' });
    expect(last.status).toBe(409);
    expect((await last.json()) as { code: string; detail: string }).toMatchObject({
      code: 'conflict',
      detail: expect.stringMatching(/last active owner key/),
    });
    const second = await created(owner.key, { name: 'new owner', scopes: ['read', 'keys:write'] });
    expect((await t.api(`/v1/keys/${owner.keyId}`, { key: owner.key, method: 'DELETE' })).status).toBe(204);
    expect((await t.api('/v1/meta', { key: owner.key })).status).toBe(401);
    expect((await t.api(`/v1/keys/${second.id}`, { key: second.key, method: 'DELETE' })).status).toBe(409);
  });
});

describe('POST /v1/keys/{id}/rotate', () => {
  it('answers a new secret for the same key; the old one works through the grace period and is a 401 after', async () => {
    const owner = await ownerKey();
    const key = await created(owner.key, { name: 'rotating' });
    const res = await t.api(`/v1/keys/${key.id}/rotate`, {
      key: owner.key,
      method: 'POST',
      json: { grace_seconds: 1 },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const rotated = (await res.json()) as NewKeyView;
    expect(rotated).toMatchObject({ id: key.id, name: 'rotating', scopes: key.scopes, status: 'active' });
    expect(rotated.key).not.toBe(key.key);
    expect(rotated.rotation?.previous_key_prefix).toBe(key.key_prefix);
    expect(Date.parse(rotated.rotation?.previous_expires_at ?? '') - Date.now()).toBeLessThanOrEqual(1000);
    expect((await t.api('/v1/meta', { key: key.key })).status).toBe(200);
    expect((await t.api('/v1/meta', { key: rotated.key })).status).toBe(200);
    // the old secret stops at the end of its grace (polled), the new one goes on
    await eventually(
      async () => (await t.api('/v1/meta', { key: key.key })).status === 401,
      10_000,
      "the old secret's grace to end",
    );
    expect((await t.api('/v1/meta', { key: rotated.key })).status).toBe(200);
    const listed = (await (await t.api('/v1/keys', { key: owner.key })).json()) as { data: KeyBody[] };
    expect(listed.data.find((k) => k.id === key.id)).toMatchObject({ key_prefix: rotated.key_prefix, rotation: null });
  });

  it('a revoked key cannot be rotated (409), and the grace is bounded (400 naming grace_seconds)', async () => {
    const owner = await ownerKey();
    const key = await created(owner.key, { name: 'gone' });
    await t.api(`/v1/keys/${key.id}`, { key: owner.key, method: 'DELETE' });
    expect((await t.api(`/v1/keys/${key.id}/rotate`, { key: owner.key, method: 'POST', json: {} })).status).toBe(409);
    const tooLong = await t.api(`/v1/keys/${owner.keyId}/rotate`, {
      key: owner.key,
      method: 'POST',
      json: { grace_seconds: 604_801 },
    });
    expect(tooLong.status).toBe(400);
    expect(JSON.stringify(await tooLong.json())).toContain('grace_seconds');
  });
});
