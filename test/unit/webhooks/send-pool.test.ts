import { describe, expect, it } from 'vitest';
import type { ClaimedDelivery } from '../../../connectors/webhooks/delivery.queries.js';
import { SendPool } from '../../../connectors/webhooks/send-pool.js';

const claim = (webhook_id: string, n: number) =>
  ({ delivery_id: `dlv_${webhook_id}_${n}`, webhook_id }) as unknown as ClaimedDelivery;

function pool(maxInFlight: number, perEndpoint: number) {
  const running: Array<{ d: ClaimedDelivery; finish: () => void }> = [];
  const started: string[] = [];
  const p = new SendPool(
    maxInFlight,
    perEndpoint,
    (d) =>
      new Promise<void>((finish) => {
        started.push(d.delivery_id);
        running.push({ d, finish });
      }),
  );
  const finish = async (id: string) => {
    const i = running.findIndex((r) => r.d.delivery_id === id);
    running.splice(i, 1)[0]!.finish();
    await new Promise((r) => setImmediate(r));
  };
  return { p, running, started, finish };
}

describe('send pool', () => {
  it('never exceeds the global or the per-subscription limit', () => {
    const { p, running } = pool(3, 2);
    p.add([claim('a', 1), claim('a', 2), claim('a', 3), claim('b', 1), claim('b', 2)]);
    expect(running.map((r) => r.d.delivery_id)).toEqual(['dlv_a_1', 'dlv_a_2', 'dlv_b_1']);
    expect(p.inFlight).toBe(3);
    expect(p.held).toBe(5);
    expect(p.heldBySubscription.get('a')).toBe(3);
  });

  it('a freed slot goes to the oldest waiting claim with room, not to whichever queue comes first', async () => {
    const { p, started, finish } = pool(2, 2);
    p.add([claim('a', 1), claim('a', 2)]);
    p.add([claim('b', 1)]);
    p.add([claim('a', 3)]);
    await finish('dlv_a_1');
    expect(started.at(-1)).toBe('dlv_b_1');
    await finish('dlv_a_2');
    expect(started.at(-1)).toBe('dlv_a_3');
  });

  it('takeQueued hands back what never started and frees its hold', () => {
    const { p } = pool(1, 1);
    p.add([claim('a', 1), claim('a', 2), claim('b', 1)]);
    expect(
      p
        .takeQueued()
        .map((d) => d.delivery_id)
        .sort(),
    ).toEqual(['dlv_a_2', 'dlv_b_1']);
    expect(p.held).toBe(1);
    expect(p.heldBySubscription.get('b')).toBeUndefined();
  });
});
