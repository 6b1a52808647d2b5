import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CursorCodec } from '../../server/http/cursor.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let key: string;
let account: string;
let listCursor: string;
let listId: string;

/** Every keyset-paged collection of the API. */
const COLLECTIONS = [
  '/v1/lists',
  '/v1/lists/{list}/creators',
  '/v1/webhooks',
  '/v1/webhooks/whk_none/deliveries',
  '/v1/exports',
  '/v1/runs',
  '/v1/runs/run_none/rejects',
  '/v1/campaigns',
  '/v1/verifications',
  '/v1/creators/search',
];

interface Problem {
  code: string;
  detail: string;
  errors?: Array<{ param?: string; message: string }>;
}

beforeAll(async () => {
  t = await startTestApp({ creators: 100 });
  ({ key, accountId: account } = await t.keyWithAccount({ scopes: ['read', 'lists:write', 'admin'] }));
  for (const name of ['a', 'b']) {
    const res = await t.api('/v1/lists', { key, method: 'POST', json: { name } });
    listId = ((await res.json()) as { id: string }).id;
  }
  listCursor = ((await (await t.api('/v1/lists?limit=1', { key })).json()) as { next_cursor: string }).next_cursor;
});
afterAll(async () => {
  await t?.close();
});

async function problemFor(path: string, cursor: string): Promise<{ status: number; body: Problem }> {
  const url = `${path.replace('{list}', listId)}?cursor=${encodeURIComponent(cursor)}`;
  const res = await t.api(url, { key });
  return { status: res.status, body: (await res.json()) as Problem };
}

describe('keyset paging: one cursor shape and one error for every collection', () => {
  it('a cursor of another collection is the same 400 invalid_parameter naming cursor on every one', async () => {
    const answers = await Promise.all(
      COLLECTIONS.filter((p) => p !== '/v1/lists').map((p) => problemFor(p, listCursor)),
    );
    for (const { status, body } of answers) {
      expect(status).toBe(400);
      expect(body.code).toBe('invalid_parameter');
      expect(body.errors?.map((e) => e.param)).toEqual(['cursor']);
    }
    expect(new Set(answers.map((a) => a.body.errors?.[0]?.message)).size).toBe(1);
  });

  it('a malformed cursor and a signed cursor of the wrong shape get that same error', async () => {
    const wrongShape = CursorCodec.fromConfig(t.config).encode(`lists:${account}`, [1, 2]);
    const expected = (await problemFor('/v1/exports', listCursor)).body.errors;
    for (const cursor of ['not-a-cursor', wrongShape]) {
      const { status, body } = await problemFor('/v1/lists', cursor);
      expect(status).toBe(400);
      expect(body.errors).toEqual(expected);
    }
  });

  it('a cursor keeps working for the collection that issued it', async () => {
    const page = (await (
      await t.api(`/v1/lists?limit=1&cursor=${encodeURIComponent(listCursor)}`, { key })
    ).json()) as { data: Array<{ id: string }>; next_cursor: string | null };
    expect(page.data.map((l) => l.id)).toEqual([listId]);
    expect(page.next_cursor).toBeNull();
  });
});
