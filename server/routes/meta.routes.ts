import Router from '@koa/router';
import { z } from 'zod';
import { UnavailableError } from '../../data/errors.js';
import { PLATFORMS, NICHES } from '../../data/reference/taxonomy.js';
import { seedStatus } from '../../data/seed/seed-state.js';
import { AGE_RANGES, GENDERS, SORT_KEYS, VERDICTS } from '../../data/creators/creator-taxonomy.js';
import { SUGGEST_FIELDS, SUGGEST_REFRESH_MS, SuggestService } from '../../data/creators/creator-suggest.service.js';
import { intParam } from '../http/query-params.js';
import { defineRoute } from '../http/define-route.js';
import { requireMetricsToken } from '../http/metrics-token.js';
import type { ReadinessReport, RouteKit } from '../http/route-kit.js';
import { buildOpenApiDocument } from '../openapi/document.js';

/** Version of the /v1 API document (not the package): bump on contract changes. */
export const API_VERSION = '1.0.0';

const MetaSchema = z.object({
  niches: z.array(z.string()),
  platforms: z.array(z.string()),
  sort_keys: z.array(z.string()).describe('Search `sort` values; prefix `-` for descending'),
  genders: z.array(z.string()).describe('`audience_gender` values'),
  age_ranges: z.array(z.string()).describe('`audience_age` values'),
  verdicts: z.array(z.string()),
  interests: z.array(z.string()).describe('`audience_interest` values: every audience interest in the data, by name'),
  suggest_fields: z
    .array(z.enum(SUGGEST_FIELDS))
    .describe('Fields GET /v1/suggest completes (hashtags, mentions, brands, interests)'),
});
const SuggestQuery = z.object({
  field: z
    .enum(SUGGEST_FIELDS)
    .describe('The search filter to complete: hashtags, mentions, brands or (audience) interests'),
  prefix: z
    .string()
    .max(64)
    .default('')
    .meta({ default: '' })
    .describe('What the user typed so far (any case; # and @ optional); empty: the most used values'),
  limit: intParam(1, 50, 'How many values (default 10)').default(10).meta({ default: 10 }),
});
const SuggestSchema = z.object({
  field: z.enum(SUGGEST_FIELDS),
  values: z
    .array(
      z.object({
        value: z.string().describe('As the search parameter takes it: hashtags without #, mentions and brands with @'),
        creators: z.number().int().describe('How many creators have it'),
      }),
    )
    .describe('Values starting with the prefix, most creators first (ties by value)'),
});
const StatusSchema = z.object({ status: z.string() });

const ReadySchema = z.object({
  status: z.string(),
  search: z
    .literal('fallback')
    .optional()
    .describe('Present while searches run on SQL because the search index is being refreshed for newer data'),
});

/** How long `/readyz` waits for any one check (the store, PostgreSQL, the search index) before answering without it. */
const READY_BUDGET_MS = 800;

/** What `work` answers, or `late` when it has not answered within the readiness budget. */
async function within<T>(work: Promise<T>, late: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<T>((r) => {
        timer = setTimeout(() => r(late), READY_BUDGET_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function storeReadiness(kit: RouteKit): Promise<ReadinessReport> {
  const status = await within(
    seedStatus(kit.store).catch(() => 'failed' as const),
    'late' as const,
  );
  if (status === 'failed') return { ready: false, reason: 'The store does not answer queries.' };
  if (status === 'late') return { ready: false, reason: `The store did not answer within ${READY_BUDGET_MS} ms.` };
  if (status === 'interrupted')
    return { ready: false, reason: 'The demo dataset is being seeded; searches would see part of it.' };
  return { ready: true };
}

/** A replica whose PostgreSQL is gone would answer every /v1 request 503: the balancer should take it out. */
async function stateReadiness(kit: RouteKit): Promise<ReadinessReport> {
  // the embedded store, in the process itself, has no probe: it is ready when the process answers
  if (!kit.state.ping) return { ready: true };
  const ping = kit.stateStatus ? kit.stateStatus() : await kit.state.ping(READY_BUDGET_MS);
  return ping.ok
    ? { ready: true }
    : { ready: false, reason: `The shared state (PostgreSQL) does not answer: ${ping.reason}.` };
}

/** GET /v1/meta, the OpenAPI document, health, readiness and Prometheus metrics. */
export function metaRoutes(kit: RouteKit): Router {
  const router = new Router();
  let document: string | null = null;
  const suggestions = new SuggestService(kit.store, { track: (w) => kit.track(w) });
  kit.onInvalidate(() => suggestions.invalidate());
  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/meta',
      operationId: 'getMeta',
      tags: ['meta'],
      scope: 'read',
      summary: 'Niches, platforms, sort keys, audience genders, age ranges and interests the search accepts',
      responses: { 200: { description: 'The taxonomy', schema: MetaSchema } },
    },
    async (ctx) => {
      ctx.body = {
        niches: [...NICHES],
        platforms: [...PLATFORMS],
        sort_keys: [...SORT_KEYS],
        genders: [...GENDERS],
        age_ranges: [...AGE_RANGES],
        verdicts: [...VERDICTS],
        interests: await suggestions.all('interests'),
        suggest_fields: [...SUGGEST_FIELDS],
      } satisfies z.infer<typeof MetaSchema>;
    },
  );
  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/suggest',
      operationId: 'suggestValues',
      tags: ['meta'],
      scope: 'read',
      query: SuggestQuery,
      summary: 'Complete a hashtag, mention, brand or audience interest for the search',
      description:
        'Answered from the data: the values of the field that start with `prefix`, most creators first. ' +
        `Values may be up to ${SUGGEST_REFRESH_MS / 60_000} minute behind the newest data: they are counted again in the background ` +
        'when the data has changed, at most that often (the search itself is never behind).',
      responses: { 200: { description: 'The suggestions', schema: SuggestSchema } },
    },
    async (ctx, { query }) => {
      ctx.body = {
        field: query.field,
        values: await suggestions.suggest(query.field, query.prefix, query.limit),
      } satisfies z.infer<typeof SuggestSchema>;
    },
  );
  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/openapi.json',
      operationId: 'getOpenApi',
      tags: ['meta'],
      public: true,
      summary: 'This OpenAPI 3.1 document',
      responses: { 200: { description: 'OpenAPI 3.1', contentType: 'application/json' } },
    },
    (ctx) => {
      // built on first request: by then every router has registered its operations
      document ??= JSON.stringify(
        buildOpenApiDocument(kit.openapi, { version: API_VERSION, serverUrl: kit.config.baseUrl }),
      );
      ctx.type = 'application/json';
      ctx.body = document;
    },
  );
  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/healthz',
      operationId: 'getHealth',
      tags: ['operations'],
      public: true,
      summary: 'Liveness: the process answers',
      responses: { 200: { description: 'Alive', schema: StatusSchema } },
    },
    (ctx) => {
      ctx.body = { status: 'ok' };
    },
  );
  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/readyz',
      operationId: 'getReady',
      tags: ['operations'],
      public: true,
      errors: ['unavailable'],
      summary:
        "Readiness: the store (and in cluster mode the shared state) answers queries, a replica's search index is built, " +
        'and no demo seed is half-way (503 while `cds seed` runs)',
      description:
        `Answers within ${READY_BUDGET_MS + 200} ms whatever the databases do: a check that has not answered by then is a 503 naming it. ` +
        'A cluster API replica is not ready until its first search index build has ended; a later refresh for newer data leaves it ' +
        'ready, with `search: "fallback"` in the body while searches run on SQL.',
      responses: { 200: { description: 'Ready', schema: ReadySchema } },
    },
    async (ctx) => {
      const reports = await Promise.all([
        storeReadiness(kit),
        stateReadiness(kit),
        ...kit.readinessChecks.map((check) =>
          within(
            check(READY_BUDGET_MS - 100).catch(
              (): ReadinessReport => ({ ready: false, reason: 'The store does not answer queries.' }),
            ),
            { ready: false, reason: `A readiness check did not answer within ${READY_BUDGET_MS} ms.` },
          ),
        ),
      ]);
      const failed = reports.find((r) => !r.ready);
      if (failed) throw new UnavailableError(failed.reason ?? 'Not ready.');
      ctx.body = Object.assign({ status: 'ready' }, ...reports.map((r) => r.note ?? {})) as z.infer<typeof ReadySchema>;
    },
  );
  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/metrics',
      operationId: 'getMetrics',
      tags: ['operations'],
      public: true,
      errors: ['unauthorized'],
      summary: 'Prometheus metrics: request counts and latency histograms per route',
      description:
        'Open unless the server was started with `CDS_METRICS_TOKEN`: then send `Authorization: Bearer <that token>` ' +
        '(not an API key); without it, or with another, 401 `unauthorized`.',
      responses: { 200: { description: 'Prometheus text format', contentType: 'text/plain' } },
    },
    async (ctx) => {
      requireMetricsToken(ctx, kit.config.metricsToken);
      ctx.type = kit.metrics.registry.contentType;
      ctx.body = await kit.metrics.registry.metrics();
    },
  );
  return router;
}
