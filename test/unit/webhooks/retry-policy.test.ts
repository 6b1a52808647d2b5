import { describe, expect, it } from 'vitest';
import { classifyResponse, nextRetryDelayMs } from '../../../connectors/webhooks/index.js';

const schedule = [5, 300, 1800];

describe('webhook retry policy', () => {
  it('waits the scheduled delay within ±20 % jitter, and stops after the last step', () => {
    expect(nextRetryDelayMs(1, schedule, null, () => 0)).toBe(4000);
    expect(nextRetryDelayMs(1, schedule, null, () => 1)).toBe(6000);
    expect(nextRetryDelayMs(2, schedule, null, () => 0.5)).toBe(300_000);
    expect(nextRetryDelayMs(4, schedule, null)).toBeNull();
  });

  it('a Retry-After longer than the scheduled delay is honoured as the floor', () => {
    expect(nextRetryDelayMs(1, schedule, 60, () => 0.5)).toBe(60_000);
    expect(nextRetryDelayMs(2, schedule, 60, () => 0.5)).toBe(300_000);
  });

  it('classifies answers: 2xx success, 410 gone, Retry-After read only on 429 and 503, redirects not followed', () => {
    expect(classifyResponse(204, undefined)).toEqual({ kind: 'success', statusCode: 204 });
    expect(classifyResponse(410, undefined).kind).toBe('gone');
    expect(classifyResponse(429, '7')).toMatchObject({ kind: 'transient', retryAfterSeconds: 7 });
    expect(classifyResponse(500, '7')).toMatchObject({ kind: 'transient', retryAfterSeconds: null });
    const now = Date.parse('2026-11-21T10:00:00Z');
    expect(classifyResponse(503, 'Sat, 21 Nov 2026 10:00:30 GMT', now)).toMatchObject({ retryAfterSeconds: 30 });
    expect(classifyResponse(302, undefined)).toMatchObject({
      kind: 'transient',
      error: expect.stringMatching(/redirects are not followed/),
    });
  });
});
