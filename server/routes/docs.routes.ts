import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Router from '@koa/router';
import { z } from 'zod';
import { NotFoundError } from '../../data/errors.js';
import type { RouteKit } from '../http/route-kit.js';
import { defineAssets, definePage } from '../http/static-routes.js';

/**
 * The swagger-ui-dist files the page needs, served from our own origin (no CDN),
 * by name; a Map so names like `__proto__` are simply unknown.
 */
const ASSETS: ReadonlyMap<string, string> = new Map([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['swagger-ui-standalone-preset.js', 'text/javascript; charset=utf-8'],
  ['favicon-32x32.png', 'image/png'],
]);

/** Every media type an asset is served as (init.js included), without parameters, for the OpenAPI document. */
const ASSET_MEDIA_TYPES = [...new Set(['text/javascript', ...ASSETS.values()].map((t) => t.split(';')[0]!.trim()))];

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Creator Data Service API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"><link rel="icon" href="/docs/assets/favicon-32x32.png"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="/docs/assets/init.js"></script></body></html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#swagger-ui', deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });`;

/** GET /docs: the API reference (Swagger UI from the swagger-ui-dist package) over /v1/openapi.json. */
export function docsRoutes(kit: RouteKit): Router {
  const router = new Router();
  const dist = swaggerDistPath();
  const cache = new Map<string, Buffer>();
  const page = { path: '/docs', operationId: 'getDocs', summary: 'The human API reference page' };
  definePage(kit, router, page, PAGE, (ctx) => {
    // Swagger UI needs inline styles; nothing else is relaxed, and no other site may frame the page (clickjacking)
    ctx.set(
      'Content-Security-Policy',
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; " +
        "frame-ancestors 'none'; base-uri 'none'; form-action 'none'; object-src 'none'",
    );
    ctx.set('X-Frame-Options', 'DENY');
  });
  const assets = {
    path: '/docs/assets/{file}',
    operationId: 'getDocsAsset',
    summary: 'Static files of the reference page',
    params: z.object({ file: z.string() }),
    contentType: ASSET_MEDIA_TYPES,
  };
  defineAssets(kit, router, assets, (ctx, file) => {
    if (file === 'init.js') {
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.body = INIT;
      return;
    }
    const type = ASSETS.get(file);
    if (!type) throw new NotFoundError(`no docs asset ${file}`);
    let content = cache.get(file);
    if (!content) {
      content = readFileSync(join(dist, file));
      cache.set(file, content);
    }
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.type = type;
    ctx.body = content;
  });
  return router;
}

/**
 * The package's folder, found from one of its files: requiring the package itself
 * would run its 1.5 MB bundle (about 0.5 s of CPU in every service process) only to name that folder.
 */
function swaggerDistPath(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/absolute-path.js'));
}
