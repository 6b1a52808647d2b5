import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, createKey, hashKey, listKeys, revokeKey } from '../../../data/keys/key.service.js';
import { createTestStore, type TestStore } from '../../helpers/store.js';

let t: TestStore;
beforeAll(async () => {
  t = await createTestStore();
});
afterAll(async () => {
  await t.cleanup();
});

describe('API keys', () => {
  it('stores only the hash of a new key and authenticates with the key', async () => {
    const created = await createKey(t.store, { account: 'acme', plan: 'entry' });
    expect(created.key).toMatch(/^cds_[0-9A-Za-z]{40}$/);
    expect(created.account_created).toBe(true);
    const stored = await t.store.all('SELECT * FROM api_keys');
    expect(JSON.stringify(stored)).not.toContain(created.key);
    expect(stored[0]?.['key_hash']).toBe(hashKey(created.key));
    const principal = await authenticate(t.store, created.key);
    expect(principal?.accountName).toBe('acme');
    expect([...(principal?.scopes ?? [])]).toContain('read');
  });

  it('reuses an account by name or id and refuses an unknown scope or plan', async () => {
    const first = await createKey(t.store, { account: 'reuse', plan: 'entry', scopes: ['read'] });
    const second = await createKey(t.store, { account: first.account_id, plan: 'entry' });
    expect(second.account_id).toBe(first.account_id);
    expect(second.account_created).toBe(false);
    await expect(createKey(t.store, { account: 'x', plan: 'gold' })).rejects.toThrow(/plan must be one of/);
    await expect(createKey(t.store, { account: 'x', plan: 'entry', scopes: ['root'] })).rejects.toThrow(
      /unknown scope root/,
    );
  });

  it('stops a revoked key and an expired key at once', async () => {
    const k = await createKey(t.store, { account: 'rev', plan: 'entry' });
    await revokeKey(t.store, k.key_id);
    expect(await authenticate(t.store, k.key)).toBeNull();
    const e = await createKey(t.store, {
      account: 'exp',
      plan: 'entry',
      expires: new Date(Date.now() + 1000).toISOString(),
    });
    expect(await authenticate(t.store, e.key)).not.toBeNull();
    expect(await authenticate(t.store, e.key, Date.now() + 5000)).toBeNull();
    const listed = await listKeys(t.store, 'rev');
    expect(listed.map((x) => x.status)).toEqual(['revoked']);
  });

  it('rejects malformed and unknown keys', async () => {
    expect(await authenticate(t.store, 'nope')).toBeNull();
    expect(await authenticate(t.store, `cds_${'a'.repeat(40)}`)).toBeNull();
  });
});
