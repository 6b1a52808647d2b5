import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../config/config.js';
import { startService, type RunningService } from '../../server/main.js';
import { writeSelfSignedCert } from '../helpers/tls.js';

let dir: string;
let service: RunningService;
let ca: Buffer;

/** A GET over HTTPS trusting only our self-signed certificate. */
function get(
  url: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, servername: 'localhost' }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cds-tls-'));
  const { certPath: cert, keyPath: key } = writeSelfSignedCert(dir);
  ca = readFileSync(cert);
  const config = testConfig(join(dir, 'data'), { CDS_TLS_CERT: cert, CDS_TLS_KEY: key, CDS_ROLES: 'server' });
  service = await startService(config);
});
afterAll(async () => {
  await service?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('HTTPS', () => {
  it('serves TLS with the configured certificate and sends HSTS', async () => {
    expect(service.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const res = await get(`${service.url}/healthz`);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ status: 'ok' });
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
  });

  it('answers /v1 problems over TLS too', async () => {
    const res = await get(`${service.url}/v1/meta`);
    expect(res.status).toBe(401);
    expect(res.headers['strict-transport-security']).toMatch(/max-age=/);
  });

  it('refuses a client that does not trust the certificate', async () => {
    await expect(
      new Promise((resolve, reject) => {
        const req = request(`${service.url}/healthz`, (res) => resolve(res.statusCode));
        req.on('error', reject);
        req.end();
      }),
    ).rejects.toThrow(/self.signed|certificate/i);
  });
});
