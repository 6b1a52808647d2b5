import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../config/logger.js';
import { createKey } from '../../data/keys/key.service.js';
import { PgState } from '../../data/state/pg-state.js';
import { createApp } from '../../server/app.js';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

/** A PostgreSQL of this file's own, so the test can stop and restart it under a running API. */
describe('when the shared state is down', () => {
  let pg: TestPostgres;
  let state: PgState;
  let t: TestStore;
  let server: Server;
  let url = '';
  let key = '';

  beforeAll(async () => {
    pg = await startTestPostgres();
    state = await PgState.open(pg.url);
    t = await createTestStore({ creators: 100 });
    key = (await createKey(state, { account: 'outage', plan: 'entry' })).key;
    const app = createApp({ store: t.store, state, config: t.config, logger: createLogger(t.config) });
    server = createServer(app.callback());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await state.close();
    await t.cleanup();
    await pg.cleanup();
  });

  const lists = () => fetch(`${url}/v1/lists`, { headers: { authorization: `Bearer ${key}` } });

  it('API requests answer 503 unavailable naming no host, and work again once PostgreSQL is back', async () => {
    expect((await lists()).status).toBe(200);
    await pg.stop();
    const down = await lists();
    expect(down.status).toBe(503);
    // the balancer's health check takes the replica out meanwhile
    expect((await fetch(`${url}/readyz`)).status).toBe(503);
    const body = (await down.json()) as { code: string; detail: string };
    expect(body.code).toBe('unavailable');
    expect(body.detail).not.toMatch(/127\.0\.0\.1|\d{4,5}|postgres/i);
    await pg.start();
    let status = 0;
    for (let i = 0; i < 40 && status !== 200; i++) {
      status = (await lists()).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
  });
});
