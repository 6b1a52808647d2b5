import { Store } from './data/store.js';
const s = await Store.open('/tmp/helperA-1m/cds.duckdb', {});
const sql = `SELECT k.key_id, k.account_id, k.key_prefix, k.scopes, k.created_at, k.expires_at, k.revoked_at, a.name AS account_name, a.plan FROM api_keys k JOIN accounts a USING (account_id) WHERE k.key_hash = ?`;
const N = 1000;
let t = performance.now();
for (let i = 0; i < N; i++) await s.one(sql, ['abc']);
console.log('store.one', ((performance.now() - t) / N).toFixed(3), 'ms');
t = performance.now();
for (let i = 0; i < N; i++) await s.one('SELECT 1');
console.log('select 1', ((performance.now() - t) / N).toFixed(3), 'ms');
await s.withConnection(async (c) => {
  const p = await c.prepare(sql);
  t = performance.now();
  for (let i = 0; i < N; i++) { p.bindVarchar(1, 'abc'); const r = await p.runAndReadAll(); r.getRowObjectsJS(); }
  console.log('prepared', ((performance.now() - t) / N).toFixed(3), 'ms');
});
t = performance.now();
await Promise.all(Array.from({ length: N }, () => s.one(sql, ['abc'])));
console.log('concurrent store.one', ((performance.now() - t) / N).toFixed(3), 'ms/op');
await s.close();
