import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgState } from '../../data/state/pg-state.js';
import type { StateDb } from '../../data/state/state-db.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

interface ListBody {
  id: string;
  name: string;
  description: string | null;
  creators_count: number;
  updated_at: string;
}
interface AddBody {
  added: number;
  already_present: number;
  not_found: Array<{ handle: string; platform: string | null; reason: string; platforms?: string[] }>;
}
interface Page<T> {
  data: T[];
  next_cursor: string | null;
}
interface Member {
  handle: string;
  platform: string;
  followers: number;
  added_at: string;
}

let t: TestApp;
let unique: Array<{ handle: string; platform: string }>;
const AMBIGUOUS = '@lists_test_twin';

beforeAll(async () => {
  t = await startTestApp({ creators: 2000, planLimits: { entry: { lists: 3, creatorsPerList: 50 } } });
  unique = await t.store.all<{ handle: string; platform: string }>(`SELECT handle, platform FROM creators
    WHERE handle IN (SELECT handle FROM creators GROUP BY handle HAVING count(*) = 1) ORDER BY creator_id LIMIT 120`);
  // one handle on two platforms, to exercise the ambiguous path
  await t.store.run(
    `INSERT INTO creators (creator_id, platform, handle, niche, followers, verified, updated_at)
    VALUES (900001, 'instagram', ?, 'beauty', 1000, false, TIMESTAMP '2026-11-21 00:00:00'),
           (900002, 'tiktok', ?, 'beauty', 2000, false, TIMESTAMP '2026-11-21 00:00:00')`,
    [AMBIGUOUS, AMBIGUOUS],
  );
});
afterAll(async () => {
  await t.close();
});

async function newList(key: string, name = 'Shortlist'): Promise<ListBody> {
  const res = await t.api('/v1/lists', { key, method: 'POST', json: { name } });
  expect(res.status).toBe(201);
  return (await res.json()) as ListBody;
}

async function add(key: string, id: string, creators: unknown[], headers?: Record<string, string>): Promise<Response> {
  return t.api(`/v1/lists/${id}/creators`, { key, method: 'POST', json: { creators }, headers });
}

async function codeOf(res: Response): Promise<string> {
  return ((await res.json()) as { code: string }).code;
}

describe('list lifecycle', () => {
  it('when a list is created, the answer is 201 with Location and the list reads back, renames and deletes', async () => {
    const key = await t.key();
    const res = await t.api('/v1/lists', {
      key,
      method: 'POST',
      json: { name: ' Summer ', description: 'beauty picks' },
    });
    expect(res.status).toBe(201);
    const created = (await res.json()) as ListBody;
    expect(created.id).toMatch(/^lst_/);
    expect(res.headers.get('location')).toBe(`/v1/lists/${created.id}`);
    expect(created).toMatchObject({ name: 'Summer', description: 'beauty picks', creators_count: 0 });
    expect(await (await t.api(`/v1/lists/${created.id}`, { key })).json()).toEqual(created);

    const patched = await t.api(`/v1/lists/${created.id}`, { key, method: 'PATCH', json: { description: null } });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({ name: 'Summer', description: null });
    expect((await t.api(`/v1/lists/${created.id}`, { key, method: 'PATCH', json: {} })).status).toBe(400);

    expect((await t.api(`/v1/lists/${created.id}`, { key, method: 'DELETE' })).status).toBe(204);
    expect((await t.api(`/v1/lists/${created.id}`, { key })).status).toBe(404);
  });

  it('when the same Idempotency-Key is sent twice, one list is created and the first answer replayed', async () => {
    const key = await t.key();
    const send = () =>
      t.api('/v1/lists', { key, method: 'POST', json: { name: 'once' }, headers: { 'Idempotency-Key': 'k-1' } });
    const first = (await (await send()).json()) as ListBody;
    const second = await send();
    expect(second.status).toBe(201);
    expect(((await second.json()) as ListBody).id).toBe(first.id);
    const page = (await (await t.api('/v1/lists', { key })).json()) as Page<ListBody>;
    expect(page.data.map((l) => l.id)).toEqual([first.id]);
  });

  it('when two lists get the same name, both are created with their own ids (lists are told apart by id)', async () => {
    const key = await t.key();
    const first = await newList(key, 'Summer');
    const second = await newList(key, 'Summer');
    expect(second.id).not.toBe(first.id);
    const renamed = await t.api(`/v1/lists/${first.id}`, { key, method: 'PATCH', json: { name: 'Summer' } });
    expect(renamed.status).toBe(200);
    const page = (await (await t.api('/v1/lists', { key })).json()) as Page<ListBody>;
    expect(page.data.map((l) => [l.id, l.name])).toEqual([
      [first.id, 'Summer'],
      [second.id, 'Summer'],
    ]);
  });

  it('when the account has its plan’s number of lists, another is a 403 limit_exceeded; enterprise is unlimited', async () => {
    const key = await t.key();
    for (let i = 0; i < 3; i++) await newList(key, `l${i}`);
    const over = await t.api('/v1/lists', { key, method: 'POST', json: { name: 'one too many' } });
    expect(over.status).toBe(403);
    expect(await codeOf(over)).toBe('limit_exceeded');
    const big = await t.key({ plan: 'enterprise' });
    for (let i = 0; i < 5; i++) await newList(big, `e${i}`);
  });

  it('when lists are paged, every list comes once in creation order', async () => {
    const key = await t.key({ plan: 'enterprise' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await newList(key, `p${i}`)).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await t.api(`/v1/lists?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { key });
      const page = (await res.json()) as Page<ListBody>;
      seen.push(...page.data.map((l) => l.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(ids);
  });
});

describe('account isolation and scopes', () => {
  it('when the list is another account’s, every operation on it is a 404', async () => {
    const a = await t.key();
    const b = await t.key();
    const list = await newList(a);
    const h = unique[0]!.handle;
    const attempts = [
      t.api(`/v1/lists/${list.id}`, { key: b }),
      t.api(`/v1/lists/${list.id}`, { key: b, method: 'PATCH', json: { name: 'x' } }),
      t.api(`/v1/lists/${list.id}`, { key: b, method: 'DELETE' }),
      t.api(`/v1/lists/${list.id}/creators`, { key: b }),
      add(b, list.id, [{ handle: h }]),
      t.api(`/v1/lists/${list.id}/creators/${encodeURIComponent(h)}`, { key: b, method: 'DELETE' }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(404);
      expect(await codeOf(res)).toBe('not_found');
    }
    const own = (await (await t.api('/v1/lists', { key: b })).json()) as Page<ListBody>;
    expect(own.data).toEqual([]);
    expect((await t.api(`/v1/lists/${list.id}`, { key: a })).status).toBe(200);
  });

  it('when a read-only key writes, the answer is 403 insufficient_scope', async () => {
    const res = await t.api('/v1/lists', {
      key: await t.key({ scopes: ['read'] }),
      method: 'POST',
      json: { name: 'x' },
    });
    expect(res.status).toBe(403);
    expect(await codeOf(res)).toBe('insufficient_scope');
  });
});

describe('bulk add', () => {
  it('when the same batch is added twice, the second adds nothing and reports already_present', async () => {
    const key = await t.key();
    const list = await newList(key);
    const batch = [
      ...unique
        .slice(0, 10)
        .map((c, i) =>
          i % 2 ? { handle: c.handle.toUpperCase() } : { handle: c.handle.slice(1), platform: c.platform },
        ),
      { handle: '@no_such_creator_zz' },
      { handle: AMBIGUOUS },
      { handle: AMBIGUOUS, platform: 'tiktok' },
      { handle: unique[0]!.handle, platform: unique[0]!.platform === 'x' ? 'twitch' : 'x' },
    ];
    const first = await add(key, list.id, batch);
    expect(first.status).toBe(200);
    const r1 = (await first.json()) as AddBody;
    expect(r1.added).toBe(11);
    expect(r1.already_present).toBe(0);
    expect(r1.not_found.map((n) => n.reason).sort()).toEqual(['ambiguous_handle', 'not_found', 'not_found']);
    expect(r1.not_found.find((n) => n.reason === 'ambiguous_handle')).toMatchObject({
      handle: AMBIGUOUS,
      platforms: ['instagram', 'tiktok'],
    });

    const r2 = (await (await add(key, list.id, batch)).json()) as AddBody;
    expect(r2).toMatchObject({ added: 0, already_present: 11 });
    const members = await t.state.one<{ n: number }>('SELECT count(*) AS n FROM list_members WHERE list_id = ?', [
      list.id,
    ]);
    expect(members?.n).toBe(11);
    expect(((await (await t.api(`/v1/lists/${list.id}`, { key })).json()) as ListBody).creators_count).toBe(11);
  });

  it('when a batch would pass the creators-per-list cap, nothing is added and the answer is 403', async () => {
    const key = await t.key();
    const list = await newList(key);
    expect(((await (await add(key, list.id, unique.slice(0, 45))).json()) as AddBody).added).toBe(45);
    const over = await add(key, list.id, unique.slice(40, 56));
    expect(over.status).toBe(403);
    expect(await codeOf(over)).toBe('limit_exceeded');
    expect(((await t.api(`/v1/lists/${list.id}`, { key }).then((r) => r.json())) as ListBody).creators_count).toBe(45);
    const fits = (await (await add(key, list.id, unique.slice(40, 50))).json()) as AddBody;
    expect(fits).toMatchObject({ added: 5, already_present: 5 });
  });

  it('when the same batch is sent five times at once, every request succeeds and each creator is added once', async () => {
    const key = await t.key();
    const list = await newList(key);
    const batch = unique.slice(0, 30);
    const answers = await Promise.all([0, 1, 2, 3, 4].map(() => add(key, list.id, batch)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const bodies = await Promise.all(answers.map((r) => r.json() as Promise<AddBody>));
    expect(bodies.reduce((a, b) => a + b.added, 0)).toBe(30);
    expect(bodies.reduce((a, b) => a + b.already_present, 0)).toBe(120);
  });

  it('when creates race past the list limit, exactly the allowed number succeed', async () => {
    const key = await t.key();
    const answers = await Promise.all(
      [0, 1, 2, 3, 4].map((i) => t.api('/v1/lists', { key, method: 'POST', json: { name: `r${i}` } })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([201, 201, 201, 403, 403]);
  });

  it('when the batch is malformed, the answer is 400 naming the field', async () => {
    const key = await t.key();
    const list = await newList(key);
    const tooMany = await add(
      key,
      list.id,
      Array.from({ length: 1001 }, (_, i) => ({ handle: `@h${i}` })),
    );
    expect(tooMany.status).toBe(400);
    const badHandle = await add(key, list.id, [{ handle: 'not a handle!' }]);
    expect(badHandle.status).toBe(400);
    expect(((await badHandle.json()) as { errors: Array<{ field: string }> }).errors[0]?.field).toBe(
      'creators.0.handle',
    );
    expect((await add(key, list.id, [{ handle: '@a', extra: 1 }])).status).toBe(400);
  });
});

describe('members', () => {
  it('when members are paged with cursors, each comes exactly once in the order added', async () => {
    const key = await t.key();
    const list = await newList(key);
    await add(key, list.id, unique.slice(0, 20));
    await add(key, list.id, unique.slice(20, 33));
    const seen: Member[] = [];
    let cursor: string | null = null;
    do {
      const res = await t.api(`/v1/lists/${list.id}/creators?limit=7${cursor ? `&cursor=${cursor}` : ''}`, { key });
      expect(res.status).toBe(200);
      const page = (await res.json()) as Page<Member>;
      expect(page.data.length).toBeLessThanOrEqual(7);
      seen.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(33);
    expect(new Set(seen.map((m) => `${m.platform}:${m.handle}`)).size).toBe(33);
    expect(new Set(seen.slice(20).map((m) => `${m.platform}:${m.handle}`))).toEqual(
      new Set(unique.slice(20, 33).map((c) => `${c.platform}:${c.handle}`)),
    );
    expect(seen[0]).toMatchObject({
      handle: expect.stringMatching(/^@/),
      followers: expect.any(Number),
      added_at: expect.stringMatching(/Z$/),
    });

    const other = await newList(key, 'other');
    const first = (await (await t.api(`/v1/lists/${list.id}/creators?limit=5`, { key })).json()) as Page<Member>;
    const foreign = await t.api(`/v1/lists/${other.id}/creators?cursor=${first.next_cursor}`, { key });
    expect(foreign.status).toBe(400);
  });

  it('when a member is removed it is gone; a handle on two platforms needs platform (409 otherwise)', async () => {
    const key = await t.key();
    const list = await newList(key);
    const c = unique[0]!;
    await add(key, list.id, [
      { handle: c.handle },
      { handle: AMBIGUOUS, platform: 'instagram' },
      { handle: AMBIGUOUS, platform: 'tiktok' },
    ]);
    const path = `/v1/lists/${list.id}/creators/${encodeURIComponent(c.handle)}`;
    expect((await t.api(path, { key, method: 'DELETE' })).status).toBe(204);
    expect((await t.api(path, { key, method: 'DELETE' })).status).toBe(404);

    const twin = `/v1/lists/${list.id}/creators/${AMBIGUOUS.slice(1)}`;
    const ambiguous = await t.api(twin, { key, method: 'DELETE' });
    expect(ambiguous.status).toBe(409);
    expect(await ambiguous.json()).toMatchObject({ code: 'ambiguous_handle', platforms: ['instagram', 'tiktok'] });
    expect((await t.api(`${twin}?platform=tiktok`, { key, method: 'DELETE' })).status).toBe(204);
    expect((await t.api(twin, { key, method: 'DELETE' })).status).toBe(204);
    expect(((await (await t.api(`/v1/lists/${list.id}`, { key })).json()) as ListBody).creators_count).toBe(0);
  });
});

describe('two API replicas', () => {
  // In cluster mode the second replica has a pool of its own on the same PostgreSQL;
  // in the embedded project both replicas share the one store, as they would.
  let second: StateDb;
  let replica: TestApp;
  beforeAll(async () => {
    second = t.databaseUrl
      ? await PgState.open(t.databaseUrl, { applicationName: 'cds test replica', max: 4 })
      : t.state;
    replica = await startTestApp({ testStore: { ...t, state: second } });
  });
  afterAll(async () => {
    await replica.close();
    if (second instanceof PgState) await second.close();
  });

  async function memberIds(listId: string): Promise<number[]> {
    const rows = await t.state.all<{ creator_id: number }>(
      'SELECT creator_id FROM list_members WHERE list_id = ? ORDER BY creator_id',
      [listId],
    );
    return rows.map((r) => r.creator_id);
  }

  it('when both add batches that together pass the creators-per-list cap at once, exactly one is added', async () => {
    const key = await t.key();
    for (let round = 0; round < 5; round++) {
      const list = await newList(key, `cap ${round}`);
      const answers = await Promise.all([
        add(key, list.id, unique.slice(0, 30)),
        replica.api(`/v1/lists/${list.id}/creators`, { key, method: 'POST', json: { creators: unique.slice(30, 60) } }),
      ]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 403]);
      expect(await memberIds(list.id)).toHaveLength(30);
      await t.api(`/v1/lists/${list.id}`, { key, method: 'DELETE' });
    }
  });

  it('when both add overlapping batches at once, every creator is on the list once and none is lost', async () => {
    const key = await t.key();
    const expected = await t.store.all<{ creator_id: number }>(
      `SELECT creator_id FROM creators
      WHERE (platform, handle) IN (SELECT unnest(?::VARCHAR[]), unnest(?::VARCHAR[])) ORDER BY creator_id`,
      [unique.slice(0, 45).map((c) => c.platform), unique.slice(0, 45).map((c) => c.handle)],
    );
    expect(expected).toHaveLength(45);
    for (let round = 0; round < 5; round++) {
      const list = await newList(key, `overlap ${round}`);
      const answers = await Promise.all([
        add(key, list.id, unique.slice(0, 30)),
        replica.api(`/v1/lists/${list.id}/creators`, { key, method: 'POST', json: { creators: unique.slice(15, 45) } }),
      ]);
      expect(answers.map((r) => r.status)).toEqual([200, 200]);
      const bodies = await Promise.all(answers.map((r) => r.json() as Promise<AddBody>));
      expect(bodies.reduce((a, b) => a + b.added, 0)).toBe(45);
      expect(bodies.reduce((a, b) => a + b.already_present, 0)).toBe(15);
      expect(await memberIds(list.id)).toEqual(expected.map((r) => r.creator_id));
      await t.api(`/v1/lists/${list.id}`, { key, method: 'DELETE' });
    }
  });
});
