import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { resolve } from 'node:path';
import type { Config } from '../../config/config.js';
import { ValidationError } from '../../data/errors.js';
import { persistedSecret } from '../../data/private-files.js';

/** A keyset position: the sort key values of the last row of a page, tiebreak last. */
export type CursorValues = ReadonlyArray<string | number | boolean | null>;

/**
 * Opaque, tamper-proof keyset cursors: `base64url(json).base64url(hmac)`. The
 * payload names the `scope` it was issued for (endpoint, sort and filter hash),
 * so a forged cursor, or one from another endpoint or query, is a 400 naming
 * `cursor` — never a 500 and never someone else's rows.
 */
export class CursorCodec {
  constructor(private readonly secret: Buffer) {}

  /** The codec for a config: `cursorSecret` when set, else a random secret kept in the data folder. */
  static fromConfig(config: Pick<Config, 'cursorSecret' | 'dataDir'>): CursorCodec {
    if (config.cursorSecret) return new CursorCodec(Buffer.from(config.cursorSecret, 'utf8'));
    return new CursorCodec(secretFromFile(resolve(config.dataDir, 'cursor-secret')));
  }

  encode(scope: string, values: CursorValues): string {
    const payload = Buffer.from(JSON.stringify({ s: scope, v: values }), 'utf8').toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  /** The values of a cursor issued for `scope`; a 400 `invalid_parameter` (param `cursor`) otherwise. */
  decode(scope: string, cursor: string): CursorValues {
    const [payload, signature, extra] = cursor.split('.');
    if (!payload || !signature || extra !== undefined || !this.verify(payload, signature)) throw invalidCursor();
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw invalidCursor();
    }
    const p = parsed as { s?: unknown; v?: unknown };
    if (p.s !== scope || !Array.isArray(p.v)) throw invalidCursor();
    return p.v as CursorValues;
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest().subarray(0, 18).toString('base64url');
  }

  private verify(payload: string, signature: string): boolean {
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}

/** A short stable hash of a filter set, for cursor scopes and cache keys. */
export function fingerprint(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, 16);
}

/** The one error for a cursor the endpoint did not issue for these parameters: 400 `invalid_parameter` naming `cursor`. */
export function invalidCursor(): ValidationError {
  return ValidationError.param(
    'cursor',
    'not a cursor issued for this endpoint and these parameters; start again without cursor',
  );
}

function secretFromFile(path: string): Buffer {
  return Buffer.from(
    persistedSecret(path, () => randomBytes(32).toString('base64url')),
    'utf8',
  );
}
