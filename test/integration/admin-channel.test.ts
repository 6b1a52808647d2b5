import { request, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAdmin } from '../../cli/admin-client.js';
import { startAdminChannel } from '../../server/admin/admin-channel.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

let t: TestStore;
let channel: Server;
let socketPath: string;

beforeAll(async () => {
  t = await createTestStore();
  socketPath = join(t.dir, 'admin.sock');
  channel = await startAdminChannel(socketPath, { store: t.store, state: t.state, config: t.config });
});

afterAll(async () => {
  channel.closeAllConnections();
  await new Promise<void>((r) => channel.close(() => r()));
  await t.cleanup();
});

/** A request with the path exactly as written (no encoding), over the Unix socket. */
function rawPost(
  path: string,
  args = '{}',
): Promise<{ status: number; body: string; cacheControl: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, method: 'POST' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, cacheControl: res.headers['cache-control'] }));
    });
    req.setTimeout(5_000, () => req.destroy(new Error(`no answer to ${path}`)));
    req.on('error', reject);
    req.end(args);
  });
}

/** keys.list through the CLI's own client: a valid operation. */
async function listKeys(): Promise<{ result?: unknown; error?: unknown }> {
  const reply = await callAdmin(socketPath, 'keys.list', {}, () => undefined);
  if (!reply.reached) throw new Error('the admin channel was not reached');
  return reply;
}

describe('admin channel', () => {
  it('a path that is not valid percent-encoding answers 400 with an error line, and the channel keeps serving', async () => {
    const bad = await rawPost('/ops/%E0%A4%A');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body.trim())).toMatchObject({
      error: { user: true, message: expect.stringMatching(/not a valid/) },
    });
    const reply = await listKeys();
    expect(reply.error).toBeUndefined();
    expect(Array.isArray(reply.result)).toBe(true);
  });

  it('an unknown operation and arguments that are not JSON answer an error line, not a crash', async () => {
    expect(JSON.parse((await rawPost('/ops/nope')).body.trim())).toMatchObject({
      error: { user: true, message: /unknown admin operation/ },
    });
    expect((await listKeys()).error).toBeUndefined();
  });

  it('the answer to keys.create, which carries the new key, is Cache-Control: no-store', async () => {
    const created = await rawPost('/ops/keys.create', JSON.stringify({ account: 'admin channel test' }));
    expect(created.status).toBe(200);
    expect(created.cacheControl).toBe('no-store');
    expect(created.body).toMatch(/"result"/);
  });
});
