import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testConfig } from './config/config.js';
import { DeliveryWorker, webhookWorkerOptions } from './connectors/webhooks/index.js';
import { Store } from './data/store.js';
const server = createServer((req, res) => { req.resume(); req.on('end', () => res.end()); });
await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
const url = `http://127.0.0.1:${(server.address() as any).port}/`;
const dir = mkdtempSync(join(tmpdir(), 'prof-'));
const config = testConfig(dir, { CDS_WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
const store = await Store.open(config.dbPath);
await store.run(`INSERT INTO webhook_subscriptions (webhook_id, account_id, url, events, secret, created_at, updated_at) VALUES ('whk_1','a',?,['*'],'whsec_AAAA',now()::TIMESTAMP,now()::TIMESTAMP)`, [url]);
await store.run(`INSERT INTO events (event_id, type, account_id, payload) SELECT 'evt_' || i, 'export.completed', 'a', json_object('i', i) FROM range(10000) t(i)`);
const stats: Record<string, { n: number; ms: number; items: number }> = {};
const P = DeliveryWorker.prototype as any;
for (const m of ['claim', 'flush', 'prune']) {
  const orig = P[m];
  P[m] = async function (...a: unknown[]) { const t = performance.now(); const r = await orig.apply(this, a); const s = (stats[m] ??= { n: 0, ms: 0, items: 0 }); s.n++; s.ms += performance.now() - t; s.items += typeof r === 'number' ? r : 0; return r; };
}
const w = new DeliveryWorker(store, webhookWorkerOptions(config, { maxInFlight: 50, perEndpoint: 50, pollMs: 10 }));
const cpu0 = process.cpuUsage(); const t0 = performance.now();
w.start();
for (;;) { const r = await store.one<{ n: number }>("SELECT count(*) n FROM deliveries WHERE status='succeeded'"); if (r!.n >= 10000) break; await new Promise((r) => setTimeout(r, 50)); }
console.log("total", performance.now() - t0, "cpu", process.cpuUsage(cpu0), stats);
await w.stop(); server.close(); await store.close();
