import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** A new signing secret in the Standard Webhooks form `whsec_<base64 of 24 random bytes>`. */
export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString('base64');
}

/** `v1,<base64 HMAC-SHA256 of id.timestamp.body>` under one secret (Standard Webhooks). */
export function signatureFor(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three Standard Webhooks headers; every secret given signs (rotation sends both, space separated). */
export function signedHeaders(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((s) => signatureFor(s, id, timestampSeconds, body)).join(' '),
  };
}
