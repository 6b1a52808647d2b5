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

  it('serves a value for checkMs from its read, reading the next in the background past three quarters of it', async () => {
    let clock = 0;
    let reads = 0;
    const releases: Array<() => void> = [];
    const version = new DataVersion(
      () => {
        reads += 1;
        const value = `v${reads}`;
        return new Promise<string>((resolve) => releases.push(() => resolve(value)));
      },
      1_000,
      () => clock,
    );
    const first = version.get();
    releases[0]!();
    expect(await first).toBe('v1');
    clock = 700;
    expect(await version.get()).toBe('v1');
    expect(reads).toBe(1);
    // past 750 ms: the value still served at once, and one read begun (not one per caller)
    clock = 800;
    expect(await version.get()).toBe('v1');
    expect(await version.get()).toBe('v1');
    expect(reads).toBe(2);
    releases[1]!();
    // the read's continuations run before the next turn of the event loop
    await new Promise((resolve) => setImmediate(resolve));
    // the new value counts from its read's start (800): served until 1,800
    clock = 1_500;
    expect(await version.get()).toBe('v2');
    expect(reads).toBe(2);
    // past its time with no read ahead (nobody asked in between): the caller waits for a read
    clock = 5_000;
    const late = version.get();
    expect(reads).toBe(3);
    releases[2]!();
    expect(await late).toBe('v3');
  });

  it("a failed read ahead is no error of the caller served; the next caller past the value's time reads again", async () => {
    let clock = 0;
    let reads = 0;
    const version = new DataVersion(
      () => {
        reads += 1;
        return reads === 2 ? Promise.reject(new Error('store busy')) : Promise.resolve(`v${reads}`);
      },
      1_000,
      () => clock,
    );
    expect(await version.get()).toBe('v1');
    clock = 900;
    expect(await version.get()).toBe('v1');
    expect(reads).toBe(2);
    // the rejected read ahead settled without an unhandled rejection; the value is still served in its time
    await new Promise((resolve) => setImmediate(resolve));
    expect(await version.get()).toBe('v1');
    clock = 1_000;
    expect(await version.get()).toBe('v3');
  });
});
