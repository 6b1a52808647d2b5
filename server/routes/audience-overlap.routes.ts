import Router from '@koa/router';
import { z } from 'zod';
import { audienceOverlap, OVERLAP_SKETCH_SIZE } from '../../data/audience-overlap/overlap.service.js';
import { normaliseHandle } from '../../data/creators/creator-profile.service.js';
import { ValidationError } from '../../data/errors.js';
import { PLATFORMS } from '../../data/reference/taxonomy.js';
import { OVERLAP_OPERATION } from '../../data/usage/usage.service.js';
import { defineRoute } from '../http/define-route.js';
import type { RouteKit } from '../http/route-kit.js';

const Pct = z.number().min(0).max(100);
const CreatorRef = z.object({ handle: z.string(), platform: z.enum(PLATFORMS) });
const OverlapBody = z.object({
  creators: z
    .array(
      z.strictObject({
        handle: z.string().min(1).max(101).describe('@name, name, any case'),
        platform: z.enum(PLATFORMS).optional().describe('Needed when the handle exists on several platforms'),
      }),
    )
    .min(2)
    .max(10)
    .describe('2–10 creators, each once'),
});
const OverlapSchema = z.object({
  total_followers: z.number().int().describe("The sum of the creators' follower counts"),
  unique_followers: z.number().int().describe('The size of the union of their audiences'),
  unique_pct: Pct.describe('unique_followers / total_followers × 100'),
  overlap_pct: Pct.describe('100 − unique_pct'),
  creators: z
    .array(
      CreatorRef.extend({
        followers: z.number().int(),
        unique_pct: Pct.describe('Share of its followers who follow none of the others'),
        overlapping_pct: Pct.describe(
          'Share of its followers who follow at least one of the others (100 − unique_pct)',
        ),
      }),
    )
    .describe('In request order'),
  pairs: z
    .array(
      z.object({
        a: CreatorRef,
        b: CreatorRef,
        overlap_pct_of_a: Pct.describe('|A ∩ B| / |A| × 100'),
        overlap_pct_of_b: Pct.describe('|A ∩ B| / |B| × 100'),
      }),
    )
    .describe('Every pair once, a before b in request order'),
  method: z
    .enum(['exact_sample', 'kmv_sketch'])
    .describe(
      `exact_sample: every sketch held its whole sample, so the shares are the samples' own; kmv_sketch: estimated from sketches of ${OVERLAP_SKETCH_SIZE} hashes`,
    ),
  error_margin_pct: Pct.describe(
    "95 % margin, in percentage points, of each creator's unique_pct against the answer of the full samples (0 when exact)",
  ),
});

const DESCRIPTION =
  "How much the audiences of 2–10 creators are the same people, from each creator's follower sample (the `follower_samples` " +
  'entity) scaled to its follower count: the shares are measured on the samples and applied to the follower counts. ' +
  'Each sample is kept as a sketch of at most ' +
  `${OVERLAP_SKETCH_SIZE} hashes, so the request costs the same at any follower count (estimator and error bound: docs/audience-overlap.md). ` +
  'A creator without a sample is a 422 `follower_sample_missing` naming it; an unknown handle a 404, an ambiguous one a 409, ' +
  `the same creator twice a 400. Each successful call is counted as \`audience_overlaps\` in GET /v1/usage.`;

/** POST /v1/audience-overlap (metered: usage counts its successful calls). */
export function audienceOverlapRoutes(kit: RouteKit): Router {
  const router = new Router();
  defineRoute(
    kit,
    router,
    {
      method: 'post',
      path: '/v1/audience-overlap',
      operationId: OVERLAP_OPERATION,
      tags: ['creators'],
      scope: 'read',
      summary: 'How much the audiences of 2–10 creators overlap',
      description: DESCRIPTION,
      body: OverlapBody,
      errors: ['creator_not_found', 'ambiguous_handle', 'follower_sample_missing'],
      responses: { 200: { description: 'The overlap', schema: OverlapSchema } },
    },
    async (ctx, { body }) => {
      const refs = body.creators.map((c, i) => {
        const handle = normaliseHandle(c.handle);
        if (!handle)
          throw ValidationError.field(`creators.${i}.handle`, 'must be a handle like @name (letters, digits, . _ -)');
        return { handle, platform: c.platform ?? null };
      });
      // the handles and follower counts from the search index when it is current (no store read), else from the store
      ctx.body = await audienceOverlap(kit.store, refs, await kit.creatorSearch().currentIndex(0));
    },
  );
  return router;
}
