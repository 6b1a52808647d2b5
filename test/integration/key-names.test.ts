import { afterAll, beforeAll, expect, it } from 'vitest';
import { createKey } from '../../data/keys/key.service.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

let t: TestStore;
beforeAll(async () => {
  t = await createTestStore();
});
afterAll(async () => {
  await t.cleanup();
});

it('a key is named by what it is: owner key only when it holds keys:write, whether or not its account is new', async () => {
  const admin = await createKey(t.state, { account: 'names-a', plan: 'entry', scopes: ['read', 'admin'] });
  expect(admin).toMatchObject({ name: 'operator key', owner: false, account_created: true });
  const owner = await createKey(t.state, { account: 'names-b', plan: 'entry' });
  expect(owner).toMatchObject({ name: 'owner key', owner: true });
  const second = await createKey(t.state, { account: 'names-b', scopes: ['read'] });
  expect(second).toMatchObject({ name: 'operator key', owner: false });
  const named = await createKey(t.state, { account: 'names-b', scopes: ['read'], name: 'demo key' });
  expect(named.name).toBe('demo key');
});
