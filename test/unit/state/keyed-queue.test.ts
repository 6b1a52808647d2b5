import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryOnWriteConflict, serialisedOn } from '../../../core/keyed-queue.js';
import { Store } from '../../../data/store.js';

let store: Store;

beforeAll(async () => {
  store = await Store.open(':memory:', { threads: 1 });
  await store.run('CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)');
  await store.run('INSERT INTO counter VALUES (1, 0)');
});
afterAll(async () => {
  await store?.close();
});

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

describe('write conflicts: the keyed queue and the bounded retry', () => {
  it('transactions serialised on one key all commit when they update the same row at once', async () => {
    const increment = (): Promise<number> =>
      store.transaction(
        async (tx) => {
          const row = await tx.one<{ n: number }>('SELECT n FROM counter WHERE id = 1');
          await tick();
          return tx.run('UPDATE counter SET n = ? WHERE id = 1', [(row?.n ?? 0) + 1]);
        },
        { serialiseOn: 'counter:1' },
      );
    await Promise.all(Array.from({ length: 12 }, increment));
    expect((await store.one<{ n: number }>('SELECT n FROM counter WHERE id = 1'))?.n).toBe(12);
  });

  it('work queued on a key runs in order within a scope, and scopes do not wait for one another', async () => {
    const order: string[] = [];
    const step = (name: string, ms: number) => async (): Promise<void> => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      order.push(name);
    };
    const [a, b] = [{}, {}];
    await Promise.all([
      serialisedOn('load', step('a1', 30), a),
      serialisedOn('load', step('a2', 1), a),
      serialisedOn('load', step('b1', 5), b),
    ]);
    expect(order).toEqual(['b1', 'a1', 'a2']);
  });

  it('a write that loses a write-write conflict runs again; any other failure is not retried', async () => {
    let calls = 0;
    const flaky = async (): Promise<string> => {
      calls += 1;
      if (calls < 3) throw new Error('TransactionContext Error: Conflict on update!');
      return 'written';
    };
    expect(await retryOnWriteConflict(flaky)).toBe('written');
    expect(calls).toBe(3);
    let other = 0;
    await expect(
      retryOnWriteConflict(async () => {
        other += 1;
        throw new Error('Constraint Error: duplicate key');
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(other).toBe(1);
  });
});
