import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { createTestStore, type TestStore } from '../helpers/store.js';

/**
 * A local partner API for the sources tests: 7 creators served by every paging
 * style, each auth style checked, an incremental `updated_since` filter, faults
 * on request (429 with Retry-After, 503, a malformed record) and a remote file with
 * an ETag. Every request is recorded with its query and headers.
 */
export interface FakeApi {
  url: string;
  requests: Array<{ path: string; query: URLSearchParams; headers: IncomingMessage['headers'] }>;
  /** Answers for the next requests to a path, before it answers normally: `429:1` is a 429 with Retry-After 1. */
  faults: Map<string, string[]>;
  /** The creators the API serves (tests add or change some). */
  creators: Array<Record<string, unknown>>;
  /** The remote file's body; its ETag follows it. */
  file: { body: string };
  close(): Promise<void>;
}

export const SECRETS = {
  bearer: 'tok-bearer-8f2a91',
  header: 'key-header-77c1e0',
  query: 'key-query-41b9d3',
  user: 'partner',
  password: 'pw-basic-5d0e6f',
};

export function apiCreator(i: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `c${i}`,
    profile: { handle: `@partner_${i}`, name: `Partner ${i}`, country: 'GB' },
    stats: { followers: String(1000 * i), engagement_ratio: 0.031 },
    category: 'tech',
    updated_at: `2026-11-1${i}T10:00:00Z`,
    ...overrides,
  };
}

const PAGE = 3;

export async function startFakeApi(): Promise<FakeApi> {
  const api: FakeApi = {
    url: '',
    requests: [],
    faults: new Map(),
    creators: Array.from({ length: 7 }, (_, i) => apiCreator(i + 1)),
    file: { body: '' },
    close: () => new Promise((r) => server.close(() => r())),
  };
  const server: Server = createServer((req, res) => handle(api, req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return api;
}

/**
 * A migrated store of the test file's own and the fake API, made before the file's
 * tests (handed to `ready`) and closed after them.
 */
export function withStoreAndFakeApi(ready: (store: TestStore, api: FakeApi) => void): void {
  let store: TestStore | undefined;
  let api: FakeApi | undefined;
  beforeAll(async () => {
    store = await createTestStore();
    api = await startFakeApi();
    ready(store, api);
  });
  afterAll(async () => {
    await api?.close();
    await store?.cleanup();
  });
}

function json(res: ServerResponse, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function handle(api: FakeApi, req: IncomingMessage, res: ServerResponse): void {
  const u = new URL(req.url ?? '/', api.url);
  api.requests.push({ path: u.pathname, query: u.searchParams, headers: req.headers });
  const fault = api.faults.get(u.pathname)?.shift();
  if (fault) {
    const [status, retryAfter] = fault.split(':');
    return void res
      .writeHead(Number(status), retryAfter ? { 'retry-after': retryAfter } : {})
      .end('{"error":"try later"}');
  }
  if (!authorised(u, req)) return void res.writeHead(401).end('{"error":"unauthorised"}');
  const since = u.searchParams.get('updated_since');
  const all = api.creators.filter((c) => !since || Date.parse(String(c['updated_at'])) > Date.parse(since));
  const route = u.pathname.split('/')[1];
  switch (route) {
    case 'cursor': {
      const at = Number(u.searchParams.get('cursor') ?? 0);
      const next = at + PAGE < all.length ? String(at + PAGE) : null;
      return json(res, { data: all.slice(at, at + PAGE), meta: { next_cursor: next } });
    }
    case 'next-url': {
      const page = Number(u.searchParams.get('p') ?? 0);
      const next =
        (page + 1) * PAGE < all.length
          ? `/next-url?p=${page + 1}${since ? `&updated_since=${encodeURIComponent(since)}` : ''}`
          : null;
      return json(res, { results: all.slice(page * PAGE, (page + 1) * PAGE), links: { next } });
    }
    case 'link': {
      const page = Number(u.searchParams.get('page') ?? 1);
      const link: Record<string, string> =
        page * PAGE < all.length
          ? { link: `<${api.url}/link?page=${page + 1}>; rel="next", <${api.url}/link?page=9>; rel="last"` }
          : {};
      return json(res, all.slice((page - 1) * PAGE, page * PAGE), link);
    }
    case 'offset': {
      const offset = Number(u.searchParams.get('offset')),
        limit = Number(u.searchParams.get('limit'));
      return json(res, { items: all.slice(offset, offset + limit), total: all.length });
    }
    case 'pages': {
      const page = Number(u.searchParams.get('page')),
        size = Number(u.searchParams.get('per_page'));
      return json(res, { items: all.slice((page - 1) * size, page * size), total_pages: Math.ceil(all.length / size) });
    }
    case 'files':
      return file(api, req, res);
    default:
      return void res.writeHead(404).end();
  }
}

/** `/x/bearer`, `/x/header`, `/x/query`, `/x/basic` demand that credential; other paths are open. */
function authorised(u: URL, req: IncomingMessage): boolean {
  const style = u.pathname.split('/')[2];
  if (style === 'bearer') return req.headers['authorization'] === `Bearer ${SECRETS.bearer}`;
  if (style === 'header') return req.headers['x-api-key'] === SECRETS.header;
  if (style === 'query') return u.searchParams.get('api_key') === SECRETS.query;
  if (style === 'basic')
    return (
      req.headers['authorization'] === `Basic ${Buffer.from(`${SECRETS.user}:${SECRETS.password}`).toString('base64')}`
    );
  return true;
}

function file(api: FakeApi, req: IncomingMessage, res: ServerResponse): void {
  const etag = `"${Buffer.from(api.file.body).toString('base64').slice(-12)}-${api.file.body.length}"`;
  if (req.headers['if-none-match'] === etag) return void res.writeHead(304, { etag }).end();
  res.writeHead(200, { 'content-type': 'text/csv', etag }).end(api.file.body);
}
