import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { testConfig } from '../../../config/config.js';
import { listen } from '../../../server/process-kit.js';

const dir = mkdtempSync(join(tmpdir(), 'cds-listen-'));
let server: Server | null = null;

afterAll(() => rmSync(dir, { recursive: true, force: true }));

afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = null;
});

describe('listen', () => {
  it("keeps idle connections 65 s and waits 66 s for headers by default, longer than a load balancer's 60 s", async () => {
    server = await listen(testConfig(dir), (_req, res) => res.end());
    expect(server.keepAliveTimeout).toBe(65_000);
    expect(server.headersTimeout).toBe(66_000);
    expect(server.requestTimeout === 0 || server.requestTimeout >= server.headersTimeout).toBe(true);
  });

  it('takes the keep-alive timeout from CDS_KEEPALIVE_TIMEOUT_MS, the headers timeout a second longer', async () => {
    server = await listen(testConfig(dir, { CDS_KEEPALIVE_TIMEOUT_MS: '620000' }), (_req, res) => res.end());
    expect(server.keepAliveTimeout).toBe(620_000);
    expect(server.headersTimeout).toBe(621_000);
    expect(server.requestTimeout === 0 || server.requestTimeout >= 621_000).toBe(true);
  });
});
