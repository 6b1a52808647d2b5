import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LookalikeItem } from '../../data/creators/search-index/lookalikes.js';
import { lookalikesReady, startTestApp, type TestApp } from '../helpers/app.js';

/** A match as the lookalikes endpoint answers it. */
type Match = LookalikeItem;
interface Body {
  creator: { handle: string; platform: string };
  creators: Match[];
  next_cursor: string | null;
}

let t: TestApp;
let key: string;
/** A creator of a planted persona group, its mates, and every creator's id by platform/handle. */
let persona: { handle: string; platform: string; mates: string[] };
const ids = new Map<string, number>();

const at = (m: { platform: string; handle: string }): string => `${m.platform}/${m.handle}`;

async function lookalikes(handle: string, query = '', as = key): Promise<Body> {
  const res = await t.api(`/v1/creators/${encodeURIComponent(handle)}/lookalikes?${query}`, { key: as });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Body;
}

/** Every page, following next_cursor. */
async function walk(handle: string, query: string): Promise<{ items: Match[]; pages: number }> {
  const items: Match[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const body = await lookalikes(handle, `${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    items.push(...body.creators);
    cursor = body.next_cursor;
    pages++;
  } while (cursor);
  return { items, pages };
}

async function problem(path: string): Promise<{ status: number; code: string; params: string[] }> {
  const res = await t.api(path, { key });
  const body = (await res.json()) as { code: string; errors?: Array<{ param?: string }> };
  return { status: res.status, code: body.code, params: (body.errors ?? []).map((e) => e.param ?? '') };
}

beforeAll(async () => {
  t = await startTestApp({ creators: 2000 });
  key = await t.key();
  for (const r of await t.store.all<{ creator_id: number; handle: string; platform: string }>(
    'SELECT creator_id, handle, platform FROM creators',
  ))
    ids.set(at(r), r.creator_id);
  const group = await t.store.all<{ handle: string; platform: string }>(`SELECT c.handle, c.platform
    FROM creator_personas p JOIN creators c USING (creator_id)
    WHERE p.persona = (SELECT persona FROM creator_personas GROUP BY persona HAVING count(*) >= 3 ORDER BY persona LIMIT 1)
    ORDER BY p.creator_id`);
  persona = { handle: group[0]!.handle, platform: group[0]!.platform, mates: group.slice(1).map(at) };
  await lookalikesReady(t, persona, key);
}, 300_000);
afterAll(async () => {
  await t?.close();
});

describe('GET /v1/creators/{handle}/lookalikes', () => {
  it('answers the creator and its matches, most similar first, ties by creator id, never the creator itself', async () => {
    for (const basis of ['content', 'audience', 'both']) {
      const body = await lookalikes(persona.handle, `platform=${persona.platform}&basis=${basis}&limit=100`);
      expect(at(body.creator)).toBe(at(persona));
      expect(body.creators.length).toBe(100);
      expect(body.creators.map(at)).not.toContain(at(persona));
      for (let i = 1; i < body.creators.length; i++) {
        const [a, b] = [body.creators[i - 1]!, body.creators[i]!];
        expect(a.similarity).toBeGreaterThanOrEqual(b.similarity);
        if (a.similarity === b.similarity) expect(ids.get(at(a))!).toBeLessThan(ids.get(at(b))!);
      }
      for (const m of body.creators) expect(m.similarity).toBeGreaterThan(0);
      for (const m of body.creators) expect(m.similarity).toBeLessThanOrEqual(1);
    }
  });

  it("finds a planted persona's other creators in its top 10 on every basis", async () => {
    for (const basis of ['content', 'audience', 'both']) {
      const top = (await lookalikes(persona.handle, `platform=${persona.platform}&basis=${basis}&limit=10`)).creators;
      expect(top.map(at), basis).toEqual(expect.arrayContaining(persona.mates));
    }
  });

  it('answers the same twice (deterministic)', async () => {
    const q = `platform=${persona.platform}&limit=50`;
    expect(await lookalikes(persona.handle, q)).toEqual(await lookalikes(persona.handle, q));
  });

  it('pages over several pages without gaps or repeats: the pages joined are the one long page', async () => {
    const q = `platform=${persona.platform}&basis=audience`;
    const whole = (await lookalikes(persona.handle, `${q}&limit=100`)).creators;
    const { items } = await walkFirst(persona.handle, `${q}&limit=7`, 100);
    expect(items.map(at)).toEqual(whole.map(at));
    expect(items.map((m) => m.similarity)).toEqual(whole.map((m) => m.similarity));
  });

  it('walks a narrowed answer to its end: every match once, the last page says so', async () => {
    const q = `platform=${persona.platform}&country=US&followers_max=20000&limit=9`;
    const { items, pages } = await walk(persona.handle, q);
    expect(pages).toBeGreaterThan(2);
    expect(new Set(items.map(at)).size).toBe(items.length);
  });

  it("filters narrow the answer: it is the unfiltered ranking's creators that match them, in the same order", async () => {
    const narrowed = 'country=US&followers_max=50000';
    const filtered = (await walk(persona.handle, `platform=${persona.platform}&${narrowed}&limit=100`)).items;
    expect(filtered.length).toBeGreaterThan(0);
    for (const m of filtered) {
      expect(m.country).toBe('US');
      expect(m.followers).toBeLessThanOrEqual(50000);
    }
    const matching = new Set(
      (
        await t.store.all<{ platform: string; handle: string }>(
          "SELECT platform, handle FROM creators WHERE country = 'US' AND followers <= 50000",
        )
      ).map(at),
    );
    const all = (await walk(persona.handle, `platform=${persona.platform}&limit=100`)).items;
    expect(filtered.map(at)).toEqual(all.filter((m) => matching.has(at(m))).map(at));
  });

  it('takes the discovery parameters too (hashtags, audience shares)', async () => {
    const body = await lookalikes(
      persona.handle,
      `platform=${persona.platform}&audience_gender=female&audience_gender_min_pct=50&limit=100`,
    );
    const female = new Set(
      (
        await t.store.all<{ platform: string; handle: string }>(`SELECT c.platform, c.handle FROM creators c
          JOIN audience a USING (creator_id) WHERE a.dimension = 'gender' AND a.key = 'female' AND a.pct >= 50`)
      ).map(at),
    );
    for (const m of body.creators) expect(female.has(at(m))).toBe(true);
  });

  it('names in its reasons only what both creators hold', async () => {
    const body = await lookalikes(persona.handle, `platform=${persona.platform}&basis=both&limit=20`);
    const lists = async (m: { platform: string; handle: string }) =>
      (await t.store.one<{ hashtags: string[]; mentions: string[]; caption_words: string[]; niche: string }>(
        `SELECT k.hashtags, k.mentions, k.caption_words, c.niche FROM creators c JOIN creator_content k USING (creator_id)
          WHERE c.platform = ? AND c.handle = ?`,
        [m.platform, m.handle],
      ))!;
    const mine = await lists(persona);
    for (const m of body.creators) {
      expect(m.reasons.length).toBeGreaterThan(0);
      const theirs = await lists(m);
      for (const r of m.reasons) {
        if (r.kind === 'niche') expect(r.detail).toBe(`same niche: ${mine.niche}`);
        if (r.kind === 'hashtags' || r.kind === 'mentions' || r.kind === 'caption_words') {
          const column = r.kind;
          const named = r.detail
            .replace(/^.*?: /, '')
            .replace(/…$/, '')
            .split(', ')
            .map((s) => s.replace(/^[#@]/, ''));
          const count = Number(r.detail.split(' ')[0]);
          expect(named.length).toBeLessThanOrEqual(count);
          for (const term of named) {
            expect(mine[column]).toContain(term);
            expect(theirs[column]).toContain(term);
          }
        }
        if (r.kind === 'audience') await expectAudienceTruthful(r.detail, persona, m);
      }
    }
  });

  it('400 naming the parameter on bad input; 404 for an unknown creator; 409 for an ambiguous handle', async () => {
    const base = `/v1/creators/${persona.handle}/lookalikes?platform=${persona.platform}`;
    expect(await problem(`${base}&basis=vibes`)).toMatchObject({ status: 400, params: ['basis'] });
    expect(await problem(`${base}&colour=red`)).toMatchObject({ status: 400, params: ['colour'] });
    expect(await problem(`${base}&sort=followers`)).toMatchObject({ status: 400, params: ['sort'] });
    expect(await problem(`${base}&followers_min=10&followers_max=5`)).toMatchObject({
      status: 400,
      params: ['followers_min'],
    });
    expect(await problem(`${base}&cursor=nonsense`)).toMatchObject({ status: 400, params: ['cursor'] });
    expect(await problem(`${base}&exclude_list=lst_notmine`)).toMatchObject({ status: 400, params: ['exclude_list'] });
    expect(await problem(`${base}&limit=0`)).toMatchObject({ status: 400, params: ['limit'] });
    expect(await problem('/v1/creators/@nobody.here/lookalikes')).toMatchObject({
      status: 404,
      code: 'creator_not_found',
    });
    const shared = await t.store.one<{ handle: string }>(
      'SELECT handle FROM creators GROUP BY handle HAVING count(DISTINCT platform) > 1 ORDER BY handle LIMIT 1',
    );
    expect(await problem(`/v1/creators/${shared!.handle}/lookalikes`)).toMatchObject({
      status: 409,
      code: 'ambiguous_handle',
    });
  });

  it("a cursor is the query's own: another basis or filter set refuses it", async () => {
    const first = await lookalikes(persona.handle, `platform=${persona.platform}&basis=content&limit=5`);
    const cursor = encodeURIComponent(first.next_cursor!);
    expect(
      await problem(
        `/v1/creators/${persona.handle}/lookalikes?platform=${persona.platform}&basis=audience&cursor=${cursor}`,
      ),
    ).toMatchObject({ status: 400, params: ['cursor'] });
  });
});

/** The pages of a walk until `n` items are collected. */
async function walkFirst(handle: string, query: string, n: number): Promise<{ items: Match[] }> {
  const items: Match[] = [];
  let cursor: string | null = null;
  do {
    const body = await lookalikes(handle, `${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    items.push(...body.creators);
    cursor = body.next_cursor;
  } while (cursor && items.length < n);
  return { items: items.slice(0, n) };
}

/** "audience 84 % alike: US 41 % vs 38 %, …": each named key's shares are the two creators' (rounded). */
async function expectAudienceTruthful(
  detail: string,
  a: { platform: string; handle: string },
  b: { platform: string; handle: string },
): Promise<void> {
  const share = async (m: { platform: string; handle: string }, dimension: string, k: string) =>
    (
      await t.store.one<{ pct: number }>(
        `SELECT max(a.pct) AS pct FROM audience a JOIN creators c USING (creator_id)
          WHERE c.platform = ? AND c.handle = ? AND a.dimension = ? AND a.key = ?`,
        [m.platform, m.handle, dimension, k],
      )
    )?.pct;
  const parts = detail
    .replace(/^audience \d+ % alike: /, '')
    .replace(/…$/, '')
    .split(', ');
  for (const part of parts) {
    const match = /^(?:(age|language|interest) )?(\S+) (\d+) % vs (\d+) %$/.exec(part);
    expect(match, part).not.toBeNull();
    const [, prefix, k, mine, theirs] = match!;
    const dimension = prefix ?? (['female', 'male', 'other'].includes(k!) ? 'gender' : 'country');
    expect(Math.round(Number(await share(a, dimension, k!)))).toBe(Number(mine));
    expect(Math.round(Number(await share(b, dimension, k!)))).toBe(Number(theirs));
  }
}
