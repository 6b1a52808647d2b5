import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../config/logger.js';
import { createRetentionPurgeWorker } from '../../../../core/retention-purge.worker.js';
import { eventually } from '../../../helpers/eventually.js';

/** A JSON logger whose lines the test reads back. */
function recordingLogger(): {
  logger: ReturnType<typeof createLogger>;
  lines: () => Array<{ level: number; msg: string; deleted?: number }>;
} {
  const out = new PassThrough();
  const text: string[] = [];
  out.on('data', (chunk: Buffer) => text.push(chunk.toString()));
  return {
    logger: createLogger({ logLevel: 'info', logFormat: 'json' }, out),
    lines: () =>
      text
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { level: number; msg: string; deleted?: number }),
  };
}

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('a retention purge worker', () => {
  it('purges at start and on its timer; a failed purge is logged and the next one runs; stop ends the timer', async () => {
    const { logger, lines } = recordingLogger();
    const answers: Array<number | Error> = [2, new Error('state unreachable'), 0];
    let calls = 0;
    const worker = createRetentionPurgeWorker({
      name: 'test-purge',
      what: 'old rows',
      logger,
      everyMs: 20,
      purge: async () => {
        const answer = answers[calls++] ?? 0;
        if (answer instanceof Error) throw answer;
        return answer;
      },
    });
    worker.start();
    await eventually(() => calls >= 3, 10_000, 'three purges');
    await worker.stop();
    const after = calls;
    await pause(60);
    expect(calls).toBe(after);
    expect(lines().map((l) => [l.msg, l.deleted])).toEqual([
      ['old rows purged', 2],
      ['purge of old rows failed', undefined],
    ]);
  });

  it('stop waits for the purge in flight', async () => {
    let finished = false;
    const worker = createRetentionPurgeWorker({
      name: 'slow-purge',
      what: 'old rows',
      logger: createLogger({ logLevel: 'silent' }),
      purge: async () => {
        await pause(50);
        finished = true;
        return 0;
      },
    });
    worker.start();
    await worker.stop();
    expect(finished).toBe(true);
  });
});
