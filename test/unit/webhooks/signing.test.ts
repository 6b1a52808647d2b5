import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { deliveryBody, newSecret, signedHeaders, signingSecrets } from '../../../connectors/webhooks/index.js';

describe('webhook signing', () => {
  it('secrets look like whsec_<base64> of 24 bytes and differ each time', () => {
    const a = newSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(newSecret()).not.toBe(a);
  });

  it('the standardwebhooks verifier accepts our headers and rejects a changed body', () => {
    const secret = newSecret();
    const body = deliveryBody('webhook.test', new Date('2026-11-21T10:00:00Z'), '{"hello":"world"}');
    const headers = signedHeaders([secret], 'dlv_abc', Math.floor(Date.now() / 1000), body);
    expect(new Webhook(secret).verify(body, headers)).toEqual({
      type: 'webhook.test',
      timestamp: '2026-11-21T10:00:00.000Z',
      data: { hello: 'world' },
    });
    expect(() => new Webhook(secret).verify(body.replace('world', 'w0rld'), headers)).toThrow();
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
  });

  it('the previous secret signs only until its grace period ends', () => {
    const now = Date.parse('2026-11-21T10:00:00Z');
    expect(signingSecrets('new', 'old', new Date(now + 1000), now)).toEqual(['new', 'old']);
    expect(signingSecrets('new', 'old', new Date(now - 1000), now)).toEqual(['new']);
    expect(signingSecrets('new', null, null, now)).toEqual(['new']);
  });
});
