import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { testConfig } from '../../config/config.js';
import { runPipeline } from '../../pipelines/engine/runner.js';
import { getPipeline } from '../../pipelines/registry.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

const EXAMPLES = join(import.meta.dirname, '../../examples/sources');
const KEY = 'AIza-test-key-0123456789';
const TOKEN = 'partner-token-abcdef';

/**
 * A local stand-in answering with the documented response shapes: YouTube Data
 * API v3 channels.list (items with snippet and statistics, counts as strings,
 * nextPageToken) and the partner API of docs/sources.md. The first request to each
 * endpoint is a 429 with Retry-After, as a rate-limited API answers.
 */
let server: Server;
let base = '';
const seen: URL[] = [];
const limited = new Set<string>();

function channel(i: number): Record<string, unknown> {
  return {
    kind: 'youtube#channel',
    etag: `e${i}`,
    id: `UC${i}`,
    snippet: {
      title: `Channel ${i}`,
      description: `About channel ${i}`,
      customUrl: `@yt_channel_${i}`,
      country: 'US',
      publishedAt: '2015-01-01T00:00:00Z',
    },
    statistics: {
      viewCount: String(900_000 * i),
      subscriberCount: String(12_000 * i),
      hiddenSubscriberCount: false,
      videoCount: String(40 * i),
    },
  };
}

function answer(req: IncomingMessage, res: ServerResponse): void {
  const u = new URL(req.url ?? '/', base);
  seen.push(u);
  const send = (body: unknown): void =>
    void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (!limited.has(u.pathname)) {
    limited.add(u.pathname);
    return void res.writeHead(429, { 'retry-after': '1' }).end('{"error":{"code":429,"message":"rate limit"}}');
  }
  if (u.pathname === '/youtube/v3/channels') {
    if (u.searchParams.get('key') !== KEY)
      return void res.writeHead(400).end('{"error":{"code":400,"message":"API key not valid"}}');
    const second = u.searchParams.get('pageToken') === 'CAIQAA';
    return send({
      kind: 'youtube#channelListResponse',
      etag: 'x',
      ...(second ? {} : { nextPageToken: 'CAIQAA' }),
      pageInfo: { totalResults: 3, resultsPerPage: 2 },
      items: second ? [channel(3)] : [channel(1), channel(2)],
    });
  }
  if (req.headers['authorization'] !== `Bearer ${TOKEN}`) return void res.writeHead(401).end();
  if (u.pathname === '/v2/creators') {
    const people = [1, 2, 3].map((i) => ({
      id: i,
      network: 'tiktok',
      username: `partner_${i}`,
      category: 'fitness',
      profile: { name: `P ${i}`, bio: null, country_code: 'DE', verified: i === 1 },
      metrics: { followers: 5000 * i, following: 10 },
      updated_at: `2026-11-1${i}T08:00:00Z`,
    }));
    const cursor = u.searchParams.get('cursor');
    return send({
      data: cursor ? people.slice(2) : people.slice(0, 2),
      paging: { next_cursor: cursor ? null : 'after-2' },
    });
  }
  if (u.pathname === '/v2/audience/gender') {
    const rows = [1, 2, 3].flatMap((i) =>
      [
        ['female', 0.62],
        ['male', 0.38],
      ].map(([gender, share]) => ({
        network: 'tiktok',
        username: `partner_${i}`,
        gender,
        share,
        measured_at: '2026-11-20T00:00:00Z',
      })),
    );
    const offset = Number(u.searchParams.get('offset'));
    return send({ items: rows.slice(offset, offset + 4), total: rows.length });
  }
  res.writeHead(404).end();
}

let t: TestStore;
beforeAll(async () => {
  t = await createTestStore();
  server = createServer(answer);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await t.cleanup();
});

/** The example as shipped, pointed at the local server (and small pages): everything else is the file's own. */
function localCopy(name: string, rewrite: (sources: Record<string, Record<string, unknown>>) => void): string {
  const text = readFileSync(join(EXAMPLES, name), 'utf8');
  const doc = (name.endsWith('.yaml') ? parseYaml(text) : JSON.parse(text)) as {
    sources: Record<string, Record<string, unknown>>;
  };
  for (const s of Object.values(doc.sources))
    Object.assign(s, { allow_insecure_localhost: true, retry: { attempts: 3, base_delay_ms: 10, max_delay_ms: 50 } });
  rewrite(doc.sources);
  const path = join(t.dir, name);
  writeFileSync(path, name.endsWith('.yaml') ? toYaml(doc) : JSON.stringify(doc));
  // the mode a git checkout gives the shipped file: it names its secrets by variable, so it loads as it is
  chmodSync(path, 0o644);
  return path;
}

describe('examples/sources', () => {
  it('youtube-channels.yaml maps channels.list (statistics and snippet) to creators, paging by pageToken past a 429', async () => {
    const file = localCopy('youtube-channels.yaml', (s) =>
      Object.assign(s['youtube-channels'] ?? {}, { base_url: `${base}/youtube/v3` }),
    );
    const config = testConfig(t.dir, { CDS_SOURCES: file, YT_API_KEY: KEY });
    const started = Date.now();
    const outcome = await runPipeline({ store: t.store, config }, getPipeline('youtube-channels', config));
    expect(outcome.runs[0]).toMatchObject({ status: 'succeeded', rows_loaded: 3, rows_rejected: 0 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(seen.filter((u) => u.pathname === '/youtube/v3/channels').map((u) => u.searchParams.get('part'))).toEqual([
      'snippet,statistics',
      'snippet,statistics',
      'snippet,statistics',
    ]);
    expect(
      await t.store.one(
        `SELECT platform, display_name, country, followers, posts_count, niche FROM creators WHERE handle = '@yt_channel_2'`,
      ),
    ).toEqual({
      platform: 'youtube',
      display_name: 'Channel 2',
      country: 'US',
      followers: 24000,
      posts_count: 80,
      niche: 'gaming',
    });
  });

  it('partner-api.json loads creators by cursor and their audience by offset, ratios as percents', async () => {
    const file = localCopy('partner-api.json', (s) => {
      for (const source of Object.values(s)) source['base_url'] = `${base}/v2`;
      Object.assign(s['partner-audience']?.['paginator'] as object, { limit: 4 });
    });
    const config = testConfig(t.dir, { CDS_SOURCES: file, PARTNER_TOKEN: TOKEN });
    const creators = await runPipeline({ store: t.store, config }, getPipeline('partner-creators', config));
    expect(creators.runs[0]).toMatchObject({ status: 'succeeded', rows_loaded: 3, rows_rejected: 0 });
    expect(seen.find((u) => u.pathname === '/v2/creators')?.searchParams.get('updated_since')).toBe(
      '2026-01-01T00:00:00Z',
    );
    const audience = await runPipeline({ store: t.store, config }, getPipeline('partner-audience', config));
    expect(audience.runs[0]).toMatchObject({ status: 'succeeded', rows_loaded: 6, rows_rejected: 0 });
    expect(
      await t.store.all(`SELECT a.key, a.pct FROM audience a JOIN creators c USING (creator_id)
      WHERE c.handle = '@partner_1' AND a.dimension = 'gender' ORDER BY a.key`),
    ).toEqual([
      { key: 'female', pct: 62 },
      { key: 'male', pct: 38 },
    ]);
  });
});
