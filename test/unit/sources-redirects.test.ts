import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getWithRetry } from '../../pipelines/sources/http/http-request.js';

// docs/sources.md: a source's credentials go only to its own origin. A redirect to another
// host must not take them along (fetch's own `follow` forwards an API key header).
let source: Server;
let other: Server;
let sourceUrl: string;
let otherUrl: string;
const seenByOther: IncomingHttpHeaders[] = [];

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

beforeAll(async () => {
  other = createServer((req, res) => {
    seenByOther.push(req.headers);
    res.end('[]');
  });
  otherUrl = await listen(other);
  source = createServer((req, res) => {
    if (req.url === '/away') res.writeHead(302, { location: `${otherUrl}/elsewhere` }).end();
    else if (req.url === '/moved') res.writeHead(301, { location: '/here' }).end();
    else res.end('[1]');
  });
  sourceUrl = await listen(source);
});

afterAll(async () => {
  await Promise.all([source, other].map((s) => new Promise((r) => s.close(r))));
});

const options = (headers?: Record<string, string>) => ({
  retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
  timeoutMs: 5_000,
  ...(headers ? { headers } : {}),
});

describe('redirects of a source request', () => {
  it("refuses a redirect to another origin when the request carries the source's headers, which never reach it", async () => {
    await expect(
      getWithRetry(new URL(`${sourceUrl}/away`), options({ 'x-api-key': 'secret-key-123' })),
    ).rejects.toThrow(/redirected to another origin/);
    expect(seenByOther).toEqual([]);
  });

  it("follows a redirect within the origin, and one anywhere when it carries nothing of the source's", async () => {
    expect(
      await (await getWithRetry(new URL(`${sourceUrl}/moved`), options({ 'x-api-key': 'secret-key-123' }))).text(),
    ).toBe('[1]');
    expect(await (await getWithRetry(new URL(`${sourceUrl}/away`), options())).text()).toBe('[]');
    expect(seenByOther.map((h) => h['x-api-key'])).toEqual([undefined]);
  });
});
