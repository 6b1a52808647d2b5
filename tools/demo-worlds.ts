import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDemoAccount } from '../data/seed/demo-account.js';
import { seedDemoData } from '../data/seed/demo-generator.js';
import { Store } from '../data/store.js';

/** A generated world the model is trained or evaluated on. */
export interface World {
  seed: number;
  variant: 'standard' | 'hard';
  creators: number;
}

/** The training world (the demo default) and the harder held-out setting (another seed, subtler fraud, noisier data). */
export const TRAIN_WORLD: World = { seed: 42, variant: 'standard', creators: 20_000 };
export const HELD_OUT_WORLD: World = { seed: 1234, variant: 'hard', creators: 20_000 };
export const AS_OF = '2026-11-21';

export function worldName(w: World): string {
  return `${w.variant} world, seed ${w.seed}, ${w.creators.toLocaleString('en-US')} creators`;
}

/** Seeds `world` into a temporary store (features and scores precomputed as at load), runs `fn`, removes it. */
export async function withWorld<T>(world: World, fn: (store: Store, seconds: number) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'cds-world-'));
  const store = await Store.open(join(dir, 'cds.duckdb'));
  try {
    const account = await ensureDemoAccount(store);
    const seeded = await seedDemoData(store, {
      creators: world.creators,
      seed: world.seed,
      variant: world.variant,
      asOf: AS_OF,
      demoAccountId: account.account_id,
    });
    return await fn(store, seeded.seconds);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
