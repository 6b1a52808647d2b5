import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../data/errors.js';
import { CursorCodec } from '../../../server/http/cursor.js';

function codeOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (error) {
    return error instanceof DomainError ? `${error.code}:${error.errors[0]?.param}` : 'other';
  }
}

describe('CursorCodec', () => {
  const codec = new CursorCodec(Buffer.from('a-test-secret-of-enough-length'));

  it('round-trips keyset values for the scope it was issued for', () => {
    const c = codec.encode('search:-followers:abc', [123.5, 42]);
    expect(codec.decode('search:-followers:abc', c)).toEqual([123.5, 42]);
  });

  it('rejects another scope, a changed payload, a changed signature and garbage as invalid_parameter on cursor', () => {
    const c = codec.encode('lists:acct_a', ['2026-01-01', 'lst_1']);
    const [payload, sig] = c.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ s: 'lists:acct_a', v: ['2026-01-01', 'lst_0'] })).toString('base64url');
    for (const bad of [
      `${forged}.${sig}`,
      `${payload}.${sig.slice(0, -1)}A`,
      'not-a-cursor',
      '',
      `${payload}.${sig}.x`,
      '....',
    ]) {
      expect(
        codeOf(() => codec.decode('lists:acct_a', bad)),
        bad,
      ).toBe('invalid_parameter:cursor');
    }
    expect(codeOf(() => codec.decode('lists:acct_b', c))).toBe('invalid_parameter:cursor');
  });

  it('rejects a cursor signed with another secret (another deployment)', () => {
    const other = new CursorCodec(Buffer.from('another-secret-entirely-0000000'));
    expect(codeOf(() => codec.decode('s', other.encode('s', [1])))).toBe('invalid_parameter:cursor');
  });

  it('keeps a random secret in the data folder, so cursors survive a restart', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cds-cursor-'));
    try {
      const c = CursorCodec.fromConfig({ cursorSecret: null, dataDir: dir }).encode('s', [1, 2]);
      expect(CursorCodec.fromConfig({ cursorSecret: null, dataDir: dir }).decode('s', c)).toEqual([1, 2]);
      const elsewhere = mkdtempSync(join(tmpdir(), 'cds-cursor-'));
      expect(codeOf(() => CursorCodec.fromConfig({ cursorSecret: null, dataDir: elsewhere }).decode('s', c))).toBe(
        'invalid_parameter:cursor',
      );
      rmSync(elsewhere, { recursive: true, force: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
