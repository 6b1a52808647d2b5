import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Writes a fresh self-signed certificate for localhost / 127.0.0.1 and its key
 * into `dir` (`cert.pem`, `key.pem`), made with the system's openssl; valid a day.
 */
export function writeSelfSignedCert(dir: string): { certPath: string; keyPath: string } {
  const certPath = join(dir, 'cert.pem');
  const keyPath = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      keyPath,
      '-out',
      certPath,
    ],
    { stdio: 'ignore' },
  );
  return { certPath, keyPath };
}
