import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testConfig } from './config/config.js';
import { claimDue, type AttemptRecord } from './connectors/webhooks/delivery.queries.js';
import { fanOut } from './connectors/webhooks/fan-out.js';
import { recordOutcomes } from './connectors/webhooks/record-outcomes.js';
import { Store } from './data/store.js';
const dir = mkdtempSync(join(tmpdir(), 'prof-'));
const config = testConfig(dir, {});
const store = await Store.open(config.dbPath);
await store.run(`INSERT INTO webhook_subscriptions (webhook_id, account_id, url, events, secret, created_at, updated_at) VALUES ('whk_1','a','http://127.0.0.1:1/',['*'],'whsec_AAAA',now()::TIMESTAMP,now()::TIMESTAMP)`);
await store.run(`INSERT INTO events (event_id, type, account_id, payload) SELECT 'evt_' || i, 'export.completed', 'a', json_object('i', i) FROM range(10000) t(i)`);
let t = performance.now();
while (await fanOut(store, 1000) > 0);
console.log('fanout all', performance.now() - t);
t = performance.now(); await fanOut(store, 1000); console.log('fanout empty probe', performance.now() - t);
for (let k = 0; k < 5; k++) {
  const now = Date.now();
  t = performance.now();
  const c = await claimDue(store, { now: new Date(now).toISOString(), leaseUntil: new Date(now + 60000).toISOString(), limit: 100, perEndpointCap: 100, held: new Map() });
  const tc = performance.now() - t;
  const recs: AttemptRecord[] = c.map((d) => ({ id: d.delivery_id, webhook_id: d.webhook_id, attempt: d.attempts, started: new Date().toISOString(), code: 200, latency: 1, err: null, status: 'succeeded', next_at: null }));
  t = performance.now();
  await recordOutcomes(store, recs, Date.now());
  console.log('claim', c.length, tc.toFixed(1), 'record', (performance.now() - t).toFixed(1));
}
