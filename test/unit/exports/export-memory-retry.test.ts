import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryLimitBytes } from '../../../config/config.js';
import { EXPORT_RETRY_MEMORY_LIMIT, retryingOutOfMemory } from '../../../connectors/exports/export.engine.js';
import { Store } from '../../../data/store.js';

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function openStore(memoryLimit: string | null): Promise<Store> {
  const dir = mkdtempSync(join(tmpdir(), 'cds-export-retry-'));
  dirs.push(dir);
  const store = await Store.open(join(dir, 'cds.duckdb'), { memoryLimit, threads: 1 });
  stores.push(store);
  return store;
}

const outOfMemory = (): Error =>
  new Error('Out of Memory Error: failed to pin block of size 256.0 KiB (91.4 MiB/91.5 MiB used)');

describe('an export that runs out of DuckDB memory under a small process limit', () => {
  it('is written again with the retry limit, then the configured limit is back', async () => {
    const store = await openStore('96MB');
    const seen: string[] = [];
    let calls = 0;
    const rows = await retryingOutOfMemory(store, async () => {
      calls++;
      seen.push(String((await store.one<{ v: string }>(`SELECT current_setting('memory_limit') AS v`))?.v));
      if (calls === 1) throw outOfMemory();
      return 42;
    });
    expect(rows).toBe(42);
    expect(calls).toBe(2);
    expect(seen[0]).not.toBe(seen[1]);
    expect(seen[1]).toMatch(/^2[34]\d(\.\d+)? MiB$/); // 256 MB is 244.1 MiB
    expect(String((await store.one<{ v: string }>(`SELECT current_setting('memory_limit') AS v`))?.v)).toBe(seen[0]);
  });

  it('fails as before when the retry fails too, and still puts the configured limit back', async () => {
    const store = await openStore('96MB');
    const before = String((await store.one<{ v: string }>(`SELECT current_setting('memory_limit') AS v`))?.v);
    await expect(
      retryingOutOfMemory(store, async () => {
        throw outOfMemory();
      }),
    ).rejects.toThrow(/Out of Memory/);
    expect(String((await store.one<{ v: string }>(`SELECT current_setting('memory_limit') AS v`))?.v)).toBe(before);
  });

  it('is not retried when the limit is already as high as the retry, or unset, or the error is another', async () => {
    for (const limit of [EXPORT_RETRY_MEMORY_LIMIT, '1GB', null]) {
      const store = await openStore(limit);
      let calls = 0;
      await expect(
        retryingOutOfMemory(store, async () => {
          calls++;
          throw outOfMemory();
        }),
      ).rejects.toThrow(/Out of Memory/);
      expect(calls).toBe(1);
    }
    const store = await openStore('96MB');
    let calls = 0;
    await expect(
      retryingOutOfMemory(store, async () => {
        calls++;
        throw new Error('No space left on device');
      }),
    ).rejects.toThrow(/No space/);
    expect(calls).toBe(1);
  });

  it('reads memory limits in the forms the configuration accepts', () => {
    expect(memoryLimitBytes('96MB')).toBe(96_000_000);
    expect(memoryLimitBytes('1.5 GiB')).toBe(1.5 * 2 ** 30);
    expect(memoryLimitBytes('256mib')).toBe(256 * 2 ** 20);
    expect(() => memoryLimitBytes('lots')).toThrow(/not a memory limit/);
  });
});
