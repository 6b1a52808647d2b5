import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** Type prefixes of the API's ids (README.md, "The API"). */
export type IdPrefix = 'lst' | 'cmp' | 'whk' | 'evt' | 'dlv' | 'exp' | 'run' | 'acct' | 'key' | 'ver' | 'req' | 'rev';

/**
 * A new opaque id: the type prefix, then 9 characters of millisecond time (so ids
 * sort by creation) and 12 random ones.
 */
export function newId(prefix: IdPrefix, now = Date.now()): string {
  return `${prefix}_${now.toString(36).padStart(9, '0')}${randomString(12)}`;
}

/** `length` random characters from [0-9a-z]. */
export function randomString(length: number, alphabet = ALPHABET): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  for (let i = 0; out.length < length && i < bytes.length; i++) {
    const b = bytes[i] ?? 0;
    if (b < 256 - (256 % alphabet.length)) out += alphabet[b % alphabet.length];
  }
  return out.length === length ? out : out + randomString(length - out.length, alphabet);
}
