import { describe, expect, it } from 'vitest';
import { DataVersion } from '../../../data/creators/data-version.js';

describe('DataVersion', () => {
  it('after a reset, a read begun before it is neither shared nor kept (a replica switched files meanwhile)', async () => {
    let file = 'old';
    const releases: Array<() => void> = [];
    let reads = 0;
    const version = new DataVersion(
      () => {
        reads += 1;
        const read = file;
        return new Promise<string>((resolve) => releases.push(() => resolve(read)));
      },
      1_000,
      () => 0,
    );
    const before = version.get();
    file = 'new';
    version.reset();
    const after = version.get();
    expect(reads).toBe(2);
    releases[1]!();
    expect(await after).toBe('new');
    releases[0]!();
    expect(await before).toBe('old');
    // the old file's answer, arriving last, is not the value kept
    expect(await version.get()).toBe('new');
    expect(reads).toBe(2);
  });
});
