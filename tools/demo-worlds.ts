import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDemoAccount } from '../data/seed/demo-account.js';
import { prng } from '../core/prng.js';
import { recomputeAuthenticity } from '../data/authenticity/precompute.js';
import { seedDemoData, type WorldParams } from '../data/seed/demo-generator.js';
import { Store } from '../data/store.js';

/** A generated world the model is trained or evaluated on. */
export interface World {
  seed: number;
  variant: 'standard' | 'hard';
  creators: number;
  /** Overrides of the variant's parameters (a drawn training world). */
  params?: Partial<WorldParams>;
}

/** The training world (the demo default) and the harder held-out setting (another seed, subtler fraud, noisier data). */
export const TRAIN_WORLD: World = { seed: 42, variant: 'standard', creators: 20_000 };
export const HELD_OUT_WORLD: World = { seed: 1234, variant: 'hard', creators: 20_000 };
export const AS_OF = '2026-11-21';

export function worldName(w: World): string {
  if (w.params)
    return `drawn world, seed ${w.seed}, ${w.creators.toLocaleString('en-US')} creators (${paramsText(w.params)})`;
  return `${w.variant} world, seed ${w.seed}, ${w.creators.toLocaleString('en-US')} creators`;
}

function paramsText(p: Partial<WorldParams>): string {
  return Object.entries(p)
    .map(([k, v]) => `${k} ${Number.isInteger(v) ? v : Number(v).toFixed(3)}`)
    .join(', ');
}

/**
 * `n` training worlds with widely randomised settings, drawn from `seed`: fraud
 * strength, noise, missing days, glitches, viral reach, history length, missing
 * audience data, the spread of audiences, the base rates of legitimate
 * oddities and of follow-for-follow fraud, and how often and how hard the
 * platforms purge bots. The same arguments give the same worlds.
 */
export function drawWorlds(n: number, seed: number, creators: number): World[] {
  const rand = prng(seed);
  const between = (lo: number, hi: number): number => lo + (hi - lo) * rand();
  // the bot purges (added later) come from a stream of their own, so the other settings stay as they were drawn
  const purgeRand = prng(seed + 1_000_003);
  const purgesBetween = (lo: number, hi: number): number => lo + (hi - lo) * purgeRand();
  return Array.from({ length: n }, (_, i) => ({
    seed: seed * 100 + i + 1,
    variant: 'standard' as const,
    creators,
    params: {
      strength: between(0.4, 1.1),
      noise: between(0.7, 3),
      gapRate: between(0, 0.06),
      viralBoost: between(4, 12),
      glitchRate: between(0, 0.05),
      oddityRate: between(0.04, 0.25),
      f4fRate: between(0.01, 0.04),
      spread: between(0.8, 2.5),
      historyDays: rand() < 0.5 ? 365 : Math.round(between(90, 365)),
      noAudienceRate: between(0, 0.15),
      purges: purgesBetween(0.5, 3.5),
      purgeStrength: purgesBetween(0.15, 1.5),
    },
  }));
}

/**
 * Seeds every world into its own temporary store, runs `fn` with them all open,
 * removes them. With `keep`, the stores live in that folder instead and are
 * reused by the next run with the same worlds (their authenticity features are
 * recomputed on reuse, so a change to the features is measured on the same data).
 */
export async function withWorlds<T>(
  worlds: readonly World[],
  fn: (stores: Store[]) => Promise<T>,
  log: (line: string) => void = () => undefined,
  keep?: string,
  purges: PurgeSource = 'given',
): Promise<T> {
  const open = async (i: number, stores: Store[]): Promise<T> => {
    const world = worlds[i];
    if (!world) return fn(stores);
    if (keep) {
      const store = await keptWorld(world, keep, log, purges);
      try {
        return await open(i + 1, [...stores, store]);
      } finally {
        await store.close();
      }
    }
    return withWorld(world, async (store, seconds) => {
      log(`seeded ${worldName(world)} in ${seconds.toFixed(0)} s`);
      if (purges === 'detected') {
        await usePurges(store, purges);
        await store.transaction((tx) => recomputeAuthenticity(tx, 'all'));
        log(`  ${purgeDetectionText(await purgeDetection(store))}`);
      }
      return open(i + 1, [...stores, store]);
    });
  };
  return open(0, []);
}

/**
 * Which bot purge days a world's features read: `given`, the generator's own
 * (platform_purges as seeded), or `detected`, none given, so every platform's
 * days are found in the history (data/authenticity/purge-detection.queries.ts),
 * as on data generated elsewhere.
 */
export type PurgeSource = 'given' | 'detected';

/**
 * Sets the world's purge days for `source` (the features are not recomputed
 * here). The generator's days are kept aside in `eval_true_purges` on first use,
 * so a kept world can be switched back and forth and detection measured against
 * them (`purgeDetection`).
 */
export async function usePurges(store: Store, source: PurgeSource): Promise<void> {
  await store.run(`CREATE TABLE IF NOT EXISTS eval_true_purges AS
    SELECT platform, purge_date FROM platform_purges WHERE source IS DISTINCT FROM 'detected'`);
  await store.run('DELETE FROM platform_purges');
  if (source === 'given')
    await store.run(
      'INSERT INTO platform_purges (platform, purge_date) SELECT platform, purge_date FROM eval_true_purges',
    );
}

/** Detection against the generator's days: true days, how many were detected on the day, and detected days that were none. */
export type PurgeDetectionFigures = {
  trueDays: number;
  found: number;
  falseDays: number;
};

/** Only true days the history covers count (a short history starts after some purges: nothing to find). */
export async function purgeDetection(store: Store): Promise<PurgeDetectionFigures> {
  const row = await store.one<PurgeDetectionFigures>(`SELECT
      (SELECT count(*)::INTEGER FROM eval_true_purges t WHERE EXISTS (SELECT 1 FROM follower_history f
        JOIN creators c ON c.creator_id = f.creator_id WHERE c.platform = t.platform AND f.date = t.purge_date - 1)) AS "trueDays",
      (SELECT count(*)::INTEGER FROM eval_true_purges t JOIN platform_purges p USING (platform, purge_date)
        WHERE p.source = 'detected') AS found,
      (SELECT count(*)::INTEGER FROM platform_purges p WHERE p.source = 'detected'
        AND NOT EXISTS (SELECT 1 FROM eval_true_purges t WHERE t.platform = p.platform AND t.purge_date = p.purge_date)) AS "falseDays"`);
  return row ?? { trueDays: 0, found: 0, falseDays: 0 };
}

export function purgeDetectionText(f: PurgeDetectionFigures): string {
  return `purge detection: ${f.found} of ${f.trueDays} true days found, ${f.falseDays} false days`;
}

async function keptWorld(world: World, dir: string, log: (line: string) => void, purges: PurgeSource): Promise<Store> {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `world-${world.seed}-${world.creators}.duckdb`);
  const reuse = existsSync(path);
  const store = await Store.open(path);
  try {
    if (reuse) {
      await usePurges(store, purges);
      await store.transaction((tx) => recomputeAuthenticity(tx, 'all'));
      log(`reused ${worldName(world)} (features recomputed, ${purges} purge days)`);
    } else {
      log(`seeded ${worldName(world)} in ${(await seedWorld(store, world)).toFixed(0)} s`);
      if (purges === 'detected') {
        await usePurges(store, purges);
        await store.transaction((tx) => recomputeAuthenticity(tx, 'all'));
      }
    }
    if (purges === 'detected') log(`  ${purgeDetectionText(await purgeDetection(store))}`);
    return store;
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** Seeds `world` into an empty store (features and scores precomputed as at load); answers the seconds it took. */
async function seedWorld(store: Store, world: World): Promise<number> {
  const account = await ensureDemoAccount(store);
  const seeded = await seedDemoData(store, {
    creators: world.creators,
    seed: world.seed,
    variant: world.variant,
    ...(world.params ? { world: world.params } : {}),
    asOf: AS_OF,
    demoAccountId: account.account_id,
  });
  return seeded.seconds;
}

/** Seeds `world` into a temporary store (features and scores precomputed as at load), runs `fn`, removes it. */
export async function withWorld<T>(world: World, fn: (store: Store, seconds: number) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'cds-world-'));
  const store = await Store.open(join(dir, 'cds.duckdb'));
  try {
    return await fn(store, await seedWorld(store, world));
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
