import type Router from '@koa/router';
import type { Context } from 'koa';
import type { z } from 'zod';
import { defineRoute } from './define-route.js';
import type { RouteKit } from './route-kit.js';

/** Where a public page (or its files) is served and how the OpenAPI document names it. */
export interface StaticRouteSpec {
  path: string;
  operationId: string;
  summary: string;
}

/**
 * A public HTML page (the docs page, the console): `headers` sets what the page
 * needs beyond its body (its Content-Security-Policy and framing rules above all).
 */
export function definePage(
  kit: RouteKit,
  router: Router,
  spec: StaticRouteSpec,
  html: string,
  headers: (ctx: Context) => void,
): void {
  defineRoute(
    kit,
    router,
    {
      ...spec,
      method: 'get',
      tags: ['meta'],
      public: true,
      responses: { 200: { description: 'HTML', contentType: 'text/html' } },
    },
    (ctx) => {
      headers(ctx);
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = html;
    },
  );
}

/**
 * The public files a page loads, by name (`{file}` in `spec.path`), served as
 * `contentType` lists; `serve` answers a file or throws `NotFoundError`.
 */
export function defineAssets(
  kit: RouteKit,
  router: Router,
  spec: StaticRouteSpec & { params: z.ZodObject<{ file: z.ZodString }>; contentType: string[] },
  serve: (ctx: Context, file: string) => Promise<void> | void,
): void {
  const { contentType, ...operation } = spec;
  defineRoute(
    kit,
    router,
    {
      ...operation,
      method: 'get',
      tags: ['meta'],
      public: true,
      errors: ['not_found'],
      responses: { 200: { description: 'A static file', contentType } },
    },
    (ctx, { params }) => serve(ctx, params.file),
  );
}
