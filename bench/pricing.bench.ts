// The price model's refit (docs/pricing.md) on a seeded store: read the campaign
// prices, fit and evaluate in JavaScript, write every creator's estimates set-based.
// The seed section runs it on its store (1M creators in a full `npm run bench`).
import { refitPrices } from '../data/derive/pricing.js';
import { Store } from '../data/store.js';

/** What one refit took, by phase, and what it wrote. */
export interface PricingBenchResult {
  creators: number;
  observations: number;
  estimates: number;
  seconds: number;
  read_s: number;
  fit_s: number;
  write_s: number;
  held_out_mdape_campaigns: number | null;
  held_out_mdape_peers: number | null;
}

/** Refits the price model of the store at `dbPath` once, in one transaction as a campaign load does; null when it holds too few prices. */
export async function runPricingBench(options: { dbPath: string }): Promise<PricingBenchResult | null> {
  const store = await Store.open(options.dbPath);
  try {
    const started = performance.now();
    const fit = await store.transaction((tx) => refitPrices(tx));
    const seconds = (performance.now() - started) / 1000;
    if (!fit) return null;
    const creators = Number((await store.one<{ n: number }>('SELECT count(*) AS n FROM creators'))?.n ?? 0);
    return {
      creators,
      observations: fit.observations,
      estimates: fit.estimates,
      seconds,
      read_s: fit.seconds.read,
      fit_s: fit.seconds.fit,
      write_s: fit.seconds.write,
      held_out_mdape_campaigns: fit.evaluation.campaigns.mdape,
      held_out_mdape_peers: fit.evaluation.peers.mdape,
    };
  } finally {
    await store.close();
  }
}

// `node bin/run-ts.mjs bench/pricing.bench.ts <store.duckdb>`: the figure alone, on any seeded store
if (process.argv[1]?.endsWith('pricing.bench.ts') && process.argv[2]) {
  console.log(JSON.stringify(await runPricingBench({ dbPath: process.argv[2] })));
}
