import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../../config/config.js';
import { SecretBox, SecretUnreadableError } from '../../../connectors/webhooks/secret-box.js';
import { newSecret } from '../../../connectors/webhooks/signing.js';

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'cds-box-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('webhook secrets at rest', () => {
  it('seals to v1:iv:tag:ciphertext and opens to the same secret; the secret is not in the sealed text', () => {
    const box = SecretBox.fromConfig(testConfig(tempDir(), { CDS_SECRET_KEY: 'k'.repeat(32) }));
    const secret = newSecret();
    const sealed = box.seal(secret, 'whk_1');
    expect(sealed.split(':')).toHaveLength(4);
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.open(sealed, 'whk_1')).toBe(secret);
  });

  it('a secret stored before encryption (no v1: prefix) is read as is', () => {
    const box = SecretBox.fromConfig(testConfig(tempDir()));
    expect(box.open('whsec_plainOldSecret', 'whk_1')).toBe('whsec_plainOldSecret');
  });

  it('another key, or the sealed text moved to another subscription, does not open: SecretUnreadableError', () => {
    const dir = tempDir();
    const sealed = SecretBox.fromConfig(testConfig(dir, { CDS_SECRET_KEY: 'a'.repeat(32) })).seal(newSecret(), 'whk_1');
    expect(() =>
      SecretBox.fromConfig(testConfig(dir, { CDS_SECRET_KEY: 'b'.repeat(32) })).open(sealed, 'whk_1'),
    ).toThrow(SecretUnreadableError);
    expect(() =>
      SecretBox.fromConfig(testConfig(dir, { CDS_SECRET_KEY: 'a'.repeat(32) })).open(sealed, 'whk_2'),
    ).toThrow(SecretUnreadableError);
  });

  it('without CDS_SECRET_KEY the key is generated once into a 0600 secret-key file in the data folder', () => {
    const dir = tempDir();
    const sealed = SecretBox.fromConfig(testConfig(dir)).seal('whsec_x', 'whk_1');
    expect(statSync(join(dir, 'secret-key')).mode & 0o777).toBe(0o600);
    expect(SecretBox.fromConfig(testConfig(dir)).open(sealed, 'whk_1')).toBe('whsec_x');
  });
});
