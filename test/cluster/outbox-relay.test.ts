import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mirrorAccounts, pruneRelayedEvents, relayOutbox } from '../../data/state/outbox-relay.js';
import { ingestFiles } from '../../pipelines/ingest.service.js';
import { CREATOR_COLUMNS, creatorRow, writeCsv } from '../fixtures/pipelines/files.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

/** The transactional-outbox relay of cluster mode: the writer's DuckDB events and runs copied into PostgreSQL. */
describe('outbox relay from the writer store to PostgreSQL', () => {
  let t: TestStore;
  let dir: string;

  beforeAll(async () => {
    t = await createTestStore({ creators: 200 });
    dir = mkdtempSync(join(tmpdir(), 'cds-relay-'));
  });
  afterAll(async () => {
    await t.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  const changeFollowers = async (name: string, followers: number): Promise<void> => {
    const rows = await t.store.all<{ platform: string; handle: string }>(
      'SELECT platform, handle FROM creators ORDER BY creator_id LIMIT 25',
    );
    const file = writeCsv(
      dir,
      name,
      CREATOR_COLUMNS,
      rows.map((r) =>
        creatorRow({ platform: r.platform, handle: r.handle, followers, updated_at: new Date().toISOString() }),
      ),
    );
    await ingestFiles({ store: t.store, config: t.config }, [file], 'creators');
  };
  const counts = async () => ({
    duck: (await t.store.one<{ n: number }>('SELECT count(*) AS n FROM events'))!.n,
    pg: (await t.state.one<{ n: number }>('SELECT count(*) AS n FROM events'))!.n,
    distinct: (await t.state.one<{ n: number }>('SELECT count(DISTINCT event_id) AS n FROM events'))!.n,
  });

  it('copies every event once, and copies none twice when the writer died between the two commits', async () => {
    expect(t.state.dialect).toBe('postgres');
    await changeFollowers('one.csv', 777_001);
    const first = await relayOutbox(t.store, t.state);
    expect(first.events).toBeGreaterThanOrEqual(25);
    let c = await counts();
    expect(c.pg).toBe(c.duck);
    // a crash after PostgreSQL committed but before the position was written: the next writer copies the same events again
    await t.store.run("UPDATE outbox_relay SET position = 0 WHERE stream = 'events'");
    await changeFollowers('two.csv', 777_002);
    const again = await relayOutbox(t.store, t.state);
    expect(again.events).toBe(c.duck + 25);
    c = await counts();
    expect(c).toEqual({ duck: c.duck, pg: c.duck, distinct: c.duck });
    const payload = await t.state.one<{ handle: string }>(
      "SELECT payload->>'handle' AS handle FROM events WHERE type = 'creator.updated' LIMIT 1",
    );
    expect(payload?.handle).toMatch(/^@/);
  });

  it('mirrors run records, including a run whose status changed after it was first copied', async () => {
    await relayOutbox(t.store, t.state);
    const duck = await t.store.all<{ run_id: string; status: string; rows_loaded: number }>(
      'SELECT run_id, status, rows_loaded FROM pipeline_runs ORDER BY run_id',
    );
    const pg = await t.state.all<{ run_id: string; status: string; rows_loaded: number }>(
      'SELECT run_id, status, rows_loaded FROM pipeline_runs ORDER BY run_id',
    );
    expect(pg).toEqual(duck);
    const running = duck[0]!.run_id;
    await t.state.run("UPDATE pipeline_runs SET status = 'running' WHERE run_id = ?", [running]);
    await relayOutbox(t.store, t.state);
    expect(
      (await t.state.one<{ status: string }>('SELECT status FROM pipeline_runs WHERE run_id = ?', [running]))?.status,
    ).toBe(duck[0]!.status);
  });

  it('mirrors accounts made in PostgreSQL into the writer store, where campaign loads check them', async () => {
    await t.state.run("INSERT INTO accounts (account_id, name, plan) VALUES ('acct_relaytest', 'relay-test', 'entry')");
    await mirrorAccounts(t.state, t.store);
    expect(await t.store.one('SELECT name, plan FROM accounts WHERE account_id = ?', ['acct_relaytest'])).toEqual({
      name: 'relay-test',
      plan: 'entry',
    });
    await t.state.run("UPDATE accounts SET plan = 'enterprise' WHERE account_id = 'acct_relaytest'");
    await mirrorAccounts(t.state, t.store);
    expect(
      (await t.store.one<{ plan: string }>('SELECT plan FROM accounts WHERE account_id = ?', ['acct_relaytest']))?.plan,
    ).toBe('enterprise');
  });

  it('prunes from the writer store only events already relayed and past retention', async () => {
    await relayOutbox(t.store, t.state);
    const total = (await t.store.one<{ n: number }>('SELECT count(*) AS n FROM events'))!.n;
    await t.store.run(
      "UPDATE events SET created_at = created_at - INTERVAL '40 days' WHERE seq IN (SELECT seq FROM events ORDER BY seq LIMIT 5)",
    );
    await t.store.run("UPDATE outbox_relay SET position = (SELECT min(seq) + 2 FROM events) WHERE stream = 'events'");
    expect(await pruneRelayedEvents(t.store, new Date(Date.now() - 30 * 86_400_000))).toBe(3);
    expect((await t.store.one<{ n: number }>('SELECT count(*) AS n FROM events'))!.n).toBe(total - 3);
  });
});
