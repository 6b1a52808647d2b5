import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { Config } from '../../config/config.js';
import { persistedSecret } from '../../data/private-files.js';

const VERSION = 'v1';
const IV_BYTES = 12;

/** A stored secret that does not decrypt: the key changed (CDS_SECRET_KEY or the key file) or the value was altered. */
export class SecretUnreadableError extends Error {
  override name = 'SecretUnreadableError';
}

/**
 * Webhook signing secrets at rest: AES-256-GCM, stored as `v1:<iv>:<tag>:<ciphertext>`
 * (base64) in the VARCHAR column both backends already have. The subscription id is
 * the additional data, so a sealed secret copied onto another row does not open.
 * A value without the `v1:` prefix is a secret stored before encryption and is read
 * as is, so existing subscriptions keep signing.
 */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** The box for a config: `CDS_SECRET_KEY`, else a random key kept 0600 in `secret-key` (cluster: the shared folder, so every process agrees). */
  static fromConfig(config: Pick<Config, 'secretKey' | 'dataDir' | 'cluster'>): SecretBox {
    const material = config.secretKey ?? keyFile(resolve(config.cluster?.sharedDir ?? config.dataDir, 'secret-key'));
    return new SecretBox(createHash('sha256').update(material, 'utf8').digest());
  }

  seal(plain: string, webhookId: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(Buffer.from(webhookId, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
  }

  open(stored: string, webhookId: string): string {
    if (!stored.startsWith(`${VERSION}:`)) return stored;
    const [, iv, tag, body] = stored.split(':');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv ?? '', 'base64')).setAAD(
        Buffer.from(webhookId, 'utf8'),
      );
      decipher.setAuthTag(Buffer.from(tag ?? '', 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(body ?? '', 'base64')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretUnreadableError(
        `the signing secret of webhook ${webhookId} does not decrypt: ` +
          'CDS_SECRET_KEY (or the secret-key file) is not the one it was stored with',
      );
    }
  }
}

/** Key files are read once per process: the API and the delivery worker share one. */
const keyFiles = new Map<string, string>();

function keyFile(path: string): string {
  let key = keyFiles.get(path);
  if (key === undefined) {
    key = persistedSecret(path, () => randomBytes(32).toString('base64url'));
    keyFiles.set(path, key);
  }
  return key;
}
