/**
 * Measures the cost of resolving an API key to its principal (the per-request
 * auth step) with many keys in the state: `node bin/run-ts.mjs
 * tools/measure-key-lookup.ts [keys=5000] [lookups=5000]`. Prints lookups per
 * second, sequential and 32 at a time, over the embedded DuckDB state.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKey } from '../data/keys/key.service.js';
import { Store } from '../data/store.js';
import { PrincipalCache } from '../server/http/principal-cache.js';

const keys = Number(process.argv[2] ?? 5000);
const lookups = Number(process.argv[3] ?? 5000);
const dir = mkdtempSync(join(tmpdir(), 'cds-keylookup-'));
const store = await Store.open(join(dir, 'cds.duckdb'), { threads: 2 });
try {
  const made: string[] = [];
  for (let i = 0; i < keys; i += 1)
    made.push((await createKey(store, { account: `acct-${i % 500}`, plan: 'entry' })).key);
  const cache = new PrincipalCache(store);
  const hot = made.slice(0, 100);
  for (const k of hot) await cache.authenticate(k);
  let started = performance.now();
  for (let i = 0; i < lookups; i += 1) await cache.authenticate(hot[i % hot.length]!);
  const sequential = lookups / ((performance.now() - started) / 1000);
  started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < lookups) await cache.authenticate(hot[(next += 1) % hot.length]!);
    }),
  );
  const concurrent = lookups / ((performance.now() - started) / 1000);
  console.log(
    JSON.stringify({
      keys,
      lookups,
      sequential_per_s: Math.round(sequential),
      concurrent32_per_s: Math.round(concurrent),
    }),
  );
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
