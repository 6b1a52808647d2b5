import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, expect } from 'vitest';
import type { AddressInfo } from 'node:net';
import type { Env } from '../../config/config.js';
import type { CreatorProfile } from '../../data/creators/creator-profile.mapper.js';
import type { Plan, PlanLimits } from '../../data/plans/plans.js';
import { createLogger } from '../../config/logger.js';
import { findAccount } from '../../data/keys/key.queries.js';
import { createKey } from '../../data/keys/key.service.js';
import { PlanCatalogue } from '../../data/plans/plan.service.js';
import { createApp, type AppDeps, type CdsApp } from '../../server/app.js';
import { eventually } from './eventually.js';
import { OpenApiResponseValidator } from './openapi-responses.js';
import { createTestStore, type TestStore } from './store.js';

/**
 * Every `api()` response is checked against the app's `/v1/openapi.json`
 * (test/helpers/openapi-responses.ts) unless `CDS_OPENAPI_CHECK=0`.
 */
const CHECK_RESPONSES = process.env['CDS_OPENAPI_CHECK'] !== '0';

export interface TestAppOptions {
  /** Seed this many demo creators (small: ~2000). */
  creators?: number;
  seed?: number;
  env?: Env;
  /** Replace plan limits in this app only (layered over the plans table, e.g. a low requests-per-minute for rate-limit tests). */
  planLimits?: Partial<Record<Plan, Partial<PlanLimits>>>;
  /** Override other AppDeps (e.g. `rateLimiter: new MemoryRateLimiter({ windowSeconds: 1 })`). */
  deps?: Partial<Omit<AppDeps, 'store' | 'state' | 'config' | 'logger'>>;
  /** Reuse an existing test store instead of creating one (it is not cleaned up by `close`). */
  testStore?: TestStore;
}

export interface TestApp extends TestStore {
  app: CdsApp;
  /** The plan limit overrides this app runs with; an app started on this one as its `testStore` inherits them (a replica). */
  planLimits?: TestAppOptions['planLimits'];
  url: string;
  server: Server;
  /** A new API key (new account unless `account` names an existing one); returns the raw key. */
  key(options?: { account?: string; plan?: Plan; scopes?: string[]; expires?: string }): Promise<string>;
  /** The same key plus its account id. */
  keyWithAccount(options?: {
    account?: string;
    plan?: Plan;
    scopes?: string[];
  }): Promise<{ key: string; accountId: string; keyId: string }>;
  /**
   * fetch against the app: `api('/v1/meta', { key })`; a `json` body is sent as JSON.
   * Throws when the response is not what `/v1/openapi.json` documents for the operation.
   */
  api(path: string, init?: RequestInit & { key?: string; json?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

let accounts = 0;

/** Starts `createApp` on 127.0.0.1 port 0 over a fresh (optionally seeded) test store. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const ts =
    options.testStore ?? (await createTestStore({ creators: options.creators, seed: options.seed, env: options.env }));
  const config = ts.config;
  const planLimits = options.planLimits ?? (options.testStore as Partial<TestApp> | undefined)?.planLimits;
  const plans = planLimits ? new PlanCatalogue(ts.state, { overrides: planLimits }) : undefined;
  const app = createApp({
    store: ts.store,
    state: ts.state,
    config,
    logger: createLogger(config),
    plans,
    ...options.deps,
  });
  const server = createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const keyWithAccount: TestApp['keyWithAccount'] = async (o = {}) => {
    const account = o.account ?? `acct-${process.pid}-${++accounts}`;
    // an existing account keeps its plan (keys create never changes it); a new one starts on entry unless told
    const plan = o.plan ?? ((await findAccount(ts.state, account)) ? null : 'entry');
    const created = await createKey(ts.state, {
      account,
      plan,
      scopes: o.scopes,
      expires: (o as { expires?: string }).expires ?? null,
    });
    return { key: created.key, accountId: created.account_id, keyId: created.key_id };
  };
  let validator: Promise<OpenApiResponseValidator> | undefined;
  const checked = async (method: string, target: string, res: Response): Promise<Response> => {
    if (!CHECK_RESPONSES) return res;
    validator ??= OpenApiResponseValidator.load(url);
    const mismatch = await (await validator).check(method, target, res);
    if (mismatch) throw new Error(`response does not match /v1/openapi.json: ${mismatch}`);
    return res;
  };
  return {
    ...ts,
    config,
    app,
    url,
    server,
    keyWithAccount,
    planLimits,
    key: async (o = {}) => (await keyWithAccount(o)).key,
    api: async (path, init = {}) => {
      const { key, json, headers, ...rest } = init;
      const h = new Headers(headers);
      if (key) h.set('Authorization', `Bearer ${key}`);
      if (json !== undefined) h.set('Content-Type', 'application/json');
      const res = await fetch(url + path, {
        ...rest,
        headers: h,
        body: json !== undefined ? JSON.stringify(json) : rest.body,
      });
      return checked(rest.method ?? 'GET', url + path, res);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await app.settle();
      if (!options.testStore) await ts.cleanup();
    },
  };
}

/**
 * One test app for a test file: started with an API key (a new account on the entry plan) before its tests,
 * handed to `use`, and closed after them.
 */
export function testAppForFile(options: TestAppOptions, use: (t: TestApp, key: string) => void): void {
  let started: TestApp | undefined;
  beforeAll(async () => {
    started = await startTestApp(options);
    use(started, await started.key());
  });
  afterAll(async () => {
    await started?.close();
  });
}

/** `GET /v1/creators/{handle}?platform=…`, which must answer 200: the creator's profile. */
export async function profileOf(
  t: Pick<TestApp, 'api'>,
  creator: { handle: string; platform: string },
  key: string,
): Promise<CreatorProfile> {
  const res = await t.api(`/v1/creators/${encodeURIComponent(creator.handle)}?platform=${creator.platform}`, { key });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as CreatorProfile;
}

/**
 * Waits until the app's lookalikes answer for `creator`: the search index is
 * built in the background after start, and the endpoint answers 503 until then.
 */
export async function lookalikesReady(
  t: Pick<TestApp, 'api'>,
  creator: { handle: string; platform: string },
  key: string,
): Promise<void> {
  await eventually(
    async () =>
      (await t.api(`/v1/creators/${creator.handle}/lookalikes?platform=${creator.platform}&limit=1`, { key }))
        .status === 200,
    60_000,
    'the lookalike index',
  );
}
