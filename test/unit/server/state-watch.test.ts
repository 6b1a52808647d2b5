import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { PingResult, StateDb } from '../../../data/state/state-db.js';
import { createStateWatch } from '../../../server/state-watch.js';

/** A state whose probe answers what the test says, on a clock the test moves. */
function scripted(): { state: StateDb; answer(result: PingResult): void } {
  let next: PingResult = { ok: true };
  const state = { ping: async () => next } as unknown as StateDb;
  return {
    state,
    answer: (result) => {
      next = result;
    },
  };
}

describe('the state watch', () => {
  it('logs an outage once when it starts, again every 15 s while it lasts, and once when PostgreSQL is back', async () => {
    const lines: Array<{ level: number; msg: string; waiting_for?: string; seconds?: number }> = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString('utf8')));
        done();
      },
    });
    let now = 0;
    const { state, answer } = scripted();
    const watch = createStateWatch(state, {
      roles: ['exports'],
      logger: pino({ level: 'info' }, sink),
      now: () => now,
    });

    await watch.probe();
    answer({ ok: false, reason: 'cannot connect (ECONNREFUSED)' });
    for (let s = 1; s <= 31; s++) {
      now = s * 1_000;
      await watch.probe();
    }
    expect(watch.status).toEqual({ ok: false, reason: 'cannot connect (ECONNREFUSED)' });
    answer({ ok: true });
    now = 32_500;
    await watch.probe();
    await watch.probe();

    expect(lines.map((l) => l.msg)).toEqual([
      'PostgreSQL is unreachable; waiting for it and retrying with backoff',
      'PostgreSQL is still unreachable; waiting',
      'PostgreSQL is still unreachable; waiting',
      'PostgreSQL is reachable again; resuming',
    ]);
    expect(lines[0]!.waiting_for).toMatch(/export jobs/);
    expect(lines[3]!.seconds).toBe(31.5);
  });
});
