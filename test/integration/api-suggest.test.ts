import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SuggestService } from '../../data/creators/creator-suggest.service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { setContentLists } from '../helpers/store.js';

let t: TestApp;
let key: string;
let ids: number[];

interface Suggest {
  field: string;
  values: Array<{ value: string; creators: number }>;
}

/** Adds values to the first `n` creators' derived list column. */
async function give(column: 'hashtags' | 'mentions' | 'brands', value: string, n: number): Promise<void> {
  for (const id of ids.slice(0, n)) {
    await setContentLists(t.store, id, { [column]: `list_append(coalesce(${column}, []), ?)` }, [value]);
  }
  await t.store.run('UPDATE creators SET updated_at = now()::TIMESTAMP WHERE list_contains(?::INTEGER[], creator_id)', [
    ids.slice(0, n),
  ]);
}

async function suggest(query: string): Promise<Suggest> {
  const res = await t.api(`/v1/suggest?${query}`, { key });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Suggest;
}

beforeAll(async () => {
  t = await startTestApp({ creators: 200 });
  key = await t.key();
  ids = (await t.store.all<{ creator_id: number }>('SELECT creator_id FROM creators ORDER BY creator_id LIMIT 6')).map(
    (r) => r.creator_id,
  );
  await give('hashtags', 'zqmealprep', 5);
  await give('hashtags', 'zqmeal', 3);
  await give('hashtags', 'zqmarket', 1);
  await give('mentions', 'zqnike', 4);
  await give('brands', '@zqnike', 2);
});

afterAll(async () => {
  await t?.close();
});

describe('GET /v1/suggest', () => {
  it('completes a hashtag prefix in any case, # optional, most creators first, cut at limit', async () => {
    const expected = [
      { value: 'zqmealprep', creators: 5 },
      { value: 'zqmeal', creators: 3 },
    ];
    expect(await suggest('field=hashtags&prefix=ZQme')).toEqual({ field: 'hashtags', values: expected });
    expect((await suggest(`field=hashtags&prefix=${encodeURIComponent('#zqme')}`)).values).toEqual(expected);
    expect((await suggest('field=hashtags&prefix=zqm&limit=2')).values).toEqual(expected);
    expect((await suggest('field=hashtags&prefix=zqm')).values.at(-1)).toEqual({ value: 'zqmarket', creators: 1 });
    expect((await suggest('field=hashtags&prefix=zqnothing')).values).toEqual([]);
  });

  it('answers mentions and brands with @, as the search takes them', async () => {
    expect((await suggest(`field=mentions&prefix=${encodeURIComponent('@zqn')}`)).values).toEqual([
      { value: '@zqnike', creators: 4 },
    ]);
    expect((await suggest('field=brands&prefix=zqn')).values).toEqual([{ value: '@zqnike', creators: 2 }]);
  });

  it('answers the most used values for an empty prefix, as counted in SQL', async () => {
    const oracle = await t.store.all<{
      value: string;
      creators: number;
    }>(`SELECT v AS value, count(*)::INTEGER AS creators
      FROM (SELECT unnest(hashtags) AS v FROM creator_content) GROUP BY v ORDER BY creators DESC, value LIMIT 10`);
    expect((await suggest('field=hashtags')).values).toEqual(oracle);
  });

  it('lists audience interests in /v1/meta and completes them', async () => {
    const interests = (
      await t.store.all<{ key: string }>(
        "SELECT DISTINCT key FROM audience WHERE dimension = 'interest' AND pct > 0 ORDER BY key",
      )
    ).map((r) => r.key);
    expect(interests.length).toBeGreaterThan(0);
    const meta = (await (await t.api('/v1/meta', { key })).json()) as { interests: string[]; suggest_fields: string[] };
    expect(meta.interests).toEqual(interests);
    expect(meta.suggest_fields).toEqual(['hashtags', 'mentions', 'brands', 'interests']);
    const first = interests[0]!;
    const values = (await suggest(`field=interests&prefix=${encodeURIComponent(first.slice(0, 2).toUpperCase())}`))
      .values;
    expect(values.map((v) => v.value)).toContain(first);
    expect(values.every((v) => v.value.startsWith(first.slice(0, 2)))).toBe(true);
  });

  it('refuses an unknown field, a limit out of range and an overlong prefix, naming the parameter', async () => {
    for (const [query, param] of [
      ['field=captions', 'field'],
      ['field=hashtags&limit=0', 'limit'],
      ['field=hashtags&limit=51', 'limit'],
      [`field=hashtags&prefix=${'a'.repeat(65)}`, 'prefix'],
      ['prefix=a', 'field'],
    ] as const) {
      const res = await t.api(`/v1/suggest?${query}`, { key });
      expect(res.status, query).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'invalid_parameter', errors: [{ param }] });
    }
  });

  it('keeps answering from the values it has while it rebuilds them after the data changed, at most once a refresh period', async () => {
    const rebuilds: Array<Promise<unknown>> = [];
    let clock = 1_000_000;
    const service = new SuggestService(t.store, {
      track: (w) => rebuilds.push(w),
      versionCheckMs: 0,
      refreshMs: 60_000,
      now: () => clock,
    });
    expect(await service.suggest('hashtags', 'zqfresh', 10)).toEqual([]);
    await give('hashtags', 'zqfresh', 6);
    clock += 59_000;
    expect(await service.suggest('hashtags', 'zqfresh', 10)).toEqual([]);
    expect(rebuilds).toHaveLength(0);
    clock += 1_000;
    // two requests at once: both answered from the values held, one rebuild between them
    expect(
      await Promise.all([service.suggest('hashtags', 'zqfresh', 10), service.suggest('hashtags', 'zqfresh', 10)]),
    ).toEqual([[], []]);
    expect(rebuilds).toHaveLength(1);
    await Promise.all(rebuilds);
    expect(await service.suggest('hashtags', 'zqfresh', 10)).toEqual([{ value: 'zqfresh', creators: 6 }]);
  });
});
