import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prng } from '../../core/prng.js';
import { audienceOverlap } from '../../data/audience-overlap/overlap.service.js';
import type { CreatorItem } from '../../data/creators/creator-item.js';
import { lookalikesReady, startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let key: string;

/** A demo creator with a follower sample, and that whole sample. */
type Sampled = Pick<CreatorItem, 'handle' | 'platform' | 'niche' | 'followers'> & { creator_id: number; ids: string[] };
interface Overlap {
  total_followers: number;
  unique_followers: number;
  unique_pct: number;
  overlap_pct: number;
  creators: Array<{ handle: string; platform: string; followers: number; unique_pct: number; overlapping_pct: number }>;
  pairs: Array<{
    a: { handle: string; platform: string };
    b: { handle: string; platform: string };
    overlap_pct_of_a: number;
    overlap_pct_of_b: number;
  }>;
  method: string;
  error_margin_pct: number;
}
interface Problem {
  code: string;
  status: number;
  detail: string;
  errors?: Array<{ field?: string; message: string }>;
  creators?: Array<{ handle: string; platform: string }>;
  platforms?: string[];
}

/** Every demo creator with a sample, its whole sample with it: what the exact answers are counted from. */
let sampled: Sampled[];

beforeAll(async () => {
  t = await startTestApp({ creators: 300 });
  key = await t.key();
  sampled =
    await t.store.all<Sampled>(`SELECT c.creator_id, c.handle, c.platform, c.niche, c.followers, list(s.follower_id) AS ids
    FROM creators c JOIN follower_samples s USING (creator_id) GROUP BY ALL ORDER BY c.creator_id`);
});
afterAll(async () => {
  await t.close();
});

const ref = (c: Sampled): { handle: string; platform: string } => ({ handle: c.handle, platform: c.platform });

async function overlap(creators: unknown[], k = key): Promise<Response> {
  return t.api('/v1/audience-overlap', { method: 'POST', key: k, json: { creators } });
}

async function ok(set: readonly Sampled[]): Promise<Overlap> {
  const res = await overlap(set.map(ref));
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Overlap;
}

async function problem(res: Response, status: number): Promise<Problem> {
  expect(res.status, await res.clone().text()).toBe(status);
  return (await res.json()) as Problem;
}

/**
 * The answer counted from the full samples, by the definition of docs/audience-overlap.md: each
 * sampled id of creator i stands for followers_i / |sample_i| followers and is shared by the creators
 * whose samples hold it; the union counts it once.
 */
function exact(set: readonly Sampled[]): { uniquePct: number; creatorUniquePct: number[]; pairOfA: number[] } {
  const sets = set.map((c) => new Set(c.ids));
  const holders = (id: string): number => sets.filter((s) => s.has(id)).length;
  let unique = 0;
  const creatorUniquePct = set.map((c) => {
    let alone = 0;
    let weight = 0;
    for (const id of c.ids) {
      const n = holders(id);
      if (n === 1) alone++;
      weight += 1 / n;
    }
    unique += (c.followers * weight) / c.ids.length;
    return (100 * alone) / c.ids.length;
  });
  const total = set.reduce((s, c) => s + c.followers, 0);
  const pairOfA: number[] = [];
  for (let a = 0; a < set.length; a++)
    for (let b = a + 1; b < set.length; b++) {
      const shared = [...(sets[a] as Set<string>)].filter((id) => sets[b]?.has(id)).length;
      pairOfA.push((100 * shared) / (set[a] as Sampled).ids.length);
    }
  return { uniquePct: (100 * unique) / total, creatorUniquePct, pairOfA };
}

/** `n` distinct sampled creators drawn with `rand`, all of one platform and niche when `alike`. */
function draw(rand: () => number, n: number, alike: boolean): Sampled[] {
  const first = sampled[Math.floor(rand() * sampled.length)] as Sampled;
  const pool = alike
    ? sampled.filter((c) => c.platform === first.platform && c.niche === first.niche && c !== first)
    : sampled.filter((c) => c !== first);
  const rest = sampled.filter((c) => c !== first && !pool.includes(c));
  const picked = [first];
  while (picked.length < n) {
    const from = pool.length > 0 ? pool : rest;
    picked.push(from.splice(Math.floor(rand() * from.length), 1)[0] as Sampled);
  }
  return picked;
}

describe('POST /v1/audience-overlap', () => {
  it('the demo world gives every creator of a small world a sample of a few thousand ids at most', () => {
    expect(sampled.length).toBe(300);
    for (const c of sampled) expect(c.ids.length).toBeLessThanOrEqual(Math.min(4000, c.followers));
    expect(Math.max(...sampled.map((c) => c.ids.length))).toBeGreaterThan(2048);
  });

  it('answers the shape of the contract: totals, per creator in request order, every pair once', async () => {
    const set = draw(prng(7), 3, true);
    const body = await ok(set);
    expect(body.total_followers).toBe(set.reduce((s, c) => s + c.followers, 0));
    expect(body.unique_followers).toBeLessThanOrEqual(body.total_followers);
    expect(body.unique_pct).toBeCloseTo((100 * body.unique_followers) / body.total_followers, 1);
    expect(body.overlap_pct).toBeCloseTo(100 - body.unique_pct, 5);
    expect(body.creators.map((c) => [c.handle, c.platform, c.followers])).toEqual(
      set.map((c) => [c.handle, c.platform, c.followers]),
    );
    for (const c of body.creators) expect(c.unique_pct + c.overlapping_pct).toBeCloseTo(100, 5);
    expect(body.pairs.map((p) => [p.a.handle, p.b.handle])).toEqual([
      [set[0]?.handle, set[1]?.handle],
      [set[0]?.handle, set[2]?.handle],
      [set[1]?.handle, set[2]?.handle],
    ]);
    expect(['exact_sample', 'kmv_sketch']).toContain(body.method);
  });

  it('answers the same from the search index, once it is current, as from the store', async () => {
    const set = sampled.slice(0, 10);
    const fromStore = await audienceOverlap(t.store, set.map(ref));
    // the index is built in the background after start; from then on the handles are named from it
    await lookalikesReady(t, ref(set[0]!), key);
    expect(await ok(set)).toEqual(fromStore);
  });

  it('is within 2 points of the exact answer from the full samples on unique_pct, for sets of 2, 5 and 10', async () => {
    const rand = prng(2026);
    let sketched = 0;
    let creators = 0;
    let withinMargin = 0;
    for (const n of [2, 5, 10]) {
      for (let trial = 0; trial < 12; trial++) {
        const set = draw(rand, n, trial % 3 !== 0);
        const body = await ok(set);
        const truth = exact(set);
        expect(Math.abs(body.unique_pct - truth.uniquePct), `${n} creators, trial ${trial}`).toBeLessThanOrEqual(2);
        body.creators.forEach((c, i) => {
          const error = Math.abs(c.unique_pct - (truth.creatorUniquePct[i] ?? 0));
          expect(error).toBeLessThanOrEqual(5);
          creators++;
          if (error <= body.error_margin_pct + 0.01) withinMargin++;
        });
        body.pairs.forEach((p, i) => {
          expect(Math.abs(p.overlap_pct_of_a - (truth.pairOfA[i] ?? 0))).toBeLessThanOrEqual(5);
        });
        if (body.method === 'kmv_sketch') sketched++;
        else expect(body.error_margin_pct).toBe(0);
      }
    }
    // the check is of the sketches, not only of samples small enough to be kept whole
    expect(sketched).toBeGreaterThan(10);
    // error_margin_pct is a 95 % margin: nearly every creator's share is inside it
    expect(withinMargin / creators).toBeGreaterThan(0.9);
  });

  it('ranges from near-zero to large overlaps among the demo creators, and says so for both ends', async () => {
    const pairs = await t.store.all<{ a: number; b: number; pct: number }>(`
      WITH shared AS (
        SELECT x.creator_id AS a, y.creator_id AS b, count(*) AS n FROM follower_samples x
        JOIN follower_samples y ON y.follower_id = x.follower_id AND y.creator_id <> x.creator_id GROUP BY ALL)
      SELECT a, b, 100.0 * n / (SELECT count(*) FROM follower_samples WHERE creator_id = a) AS pct
      FROM shared ORDER BY pct DESC, a, b LIMIT 1`);
    const top = pairs[0];
    expect(top?.pct).toBeGreaterThan(15);
    const byId = (id: number | undefined): Sampled => sampled.find((c) => c.creator_id === id) as Sampled;
    const large = await ok([byId(top?.a), byId(top?.b)]);
    expect(Math.abs((large.pairs[0]?.overlap_pct_of_a ?? 0) - (top?.pct ?? 0))).toBeLessThanOrEqual(5);
    const [x, y] = sampled
      .filter((c) => c.platform !== sampled[0]?.platform)
      .concat(sampled[0] as Sampled)
      .slice(-2);
    const none = await ok([x as Sampled, y as Sampled]);
    expect(none.pairs[0]?.overlap_pct_of_a).toBe(0);
    expect(none.unique_pct).toBe(100);
  });

  it('takes handles in any case, with or without @, and the platform only where it is needed', async () => {
    const [a, b] = draw(prng(3), 2, false) as [Sampled, Sampled];
    const single = sampled.filter((c) => sampled.filter((d) => d.handle === c.handle).length === 1);
    const [x, y] = single as [Sampled, Sampled];
    const loose = await overlap([
      { handle: x.handle.slice(1).toUpperCase() },
      { handle: y.handle, platform: y.platform },
    ]);
    expect(loose.status, await loose.clone().text()).toBe(200);
    expect(((await loose.json()) as Overlap).creators.map((c) => c.handle)).toEqual([x.handle, y.handle]);
    expect((await ok([a, b])).creators.map((c) => c.platform)).toEqual([a.platform, b.platform]);
  });

  it('is a 400 naming the field for too few or too many creators, unknown fields, bad handles and a creator named twice', async () => {
    const [a, b] = sampled as [Sampled, Sampled];
    const few = await problem(await overlap([ref(a)]), 400);
    expect(few.errors?.[0]?.field).toBe('creators');
    const many = await problem(await overlap(sampled.slice(0, 11).map(ref)), 400);
    expect(many.errors?.[0]?.field).toBe('creators');
    const unknown = await problem(await overlap([ref(a), { ...ref(b), colour: 'red' }]), 400);
    expect(unknown).toMatchObject({ code: 'invalid_body', errors: [{ field: 'creators.1.colour' }] });
    const badHandle = await problem(await overlap([ref(a), { handle: 'no spaces!' }]), 400);
    expect(badHandle.errors?.[0]?.field).toBe('creators.1.handle');
    const badPlatform = await problem(await overlap([ref(a), { handle: b.handle, platform: 'myspace' }]), 400);
    expect(badPlatform.errors?.[0]?.field).toBe('creators.1.platform');
    const twice = await problem(
      await overlap([ref(a), ref(b), { handle: a.handle.toUpperCase(), platform: a.platform }]),
      400,
    );
    expect(twice).toMatchObject({ code: 'invalid_body', errors: [{ field: 'creators.2' }] });
    const noBody = await problem(await t.api('/v1/audience-overlap', { method: 'POST', key, json: {} }), 400);
    expect(noBody.errors?.[0]?.field).toBe('creators');
  });

  it('is a 404 for an unknown handle and a 409 naming the platforms for a handle on several', async () => {
    const [a] = sampled as [Sampled];
    const missing = await problem(await overlap([ref(a), { handle: '@nobody_here_at_all' }]), 404);
    expect(missing.code).toBe('creator_not_found');
    const shared = await t.store.one<{ handle: string }>(
      'SELECT handle FROM creators GROUP BY handle HAVING count(*) > 1 ORDER BY handle LIMIT 1',
    );
    const ambiguous = await problem(await overlap([ref(a), { handle: shared?.handle }]), 409);
    expect(ambiguous.code).toBe('ambiguous_handle');
    expect(ambiguous.platforms?.length).toBeGreaterThan(1);
  });

  it('is a 422 naming every creator without a sample, and counts only successful calls in usage', async () => {
    const owner = await t.keyWithAccount();
    const [a, b, c] = sampled.slice(-3) as [Sampled, Sampled, Sampled];
    expect((await overlap([ref(a), ref(b)], owner.key)).status).toBe(200);
    // the last test of the file: these two stay without a sample
    await t.store.run('DELETE FROM follower_sketches WHERE creator_id IN (?, ?)', [b.creator_id, c.creator_id]);
    const res = await problem(await overlap([ref(a), ref(b), ref(c)], owner.key), 422);
    expect(res.code).toBe('follower_sample_missing');
    expect(res.creators).toEqual([ref(b), ref(c)]);
    expect(res.detail).toContain(b.handle);
    await t.app.flushUsage();
    const usage = (await (await t.api('/v1/usage', { key: owner.key })).json()) as { totals: Record<string, number> };
    expect(usage.totals['audience_overlaps']).toBe(1);
  });
});
