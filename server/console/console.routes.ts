import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { NotFoundError } from '../../data/errors.js';
import type { RouteKit } from '../http/route-kit.js';
import { defineAssets, definePage } from '../http/static-routes.js';
import { consoleAssets } from './console-bundle.js';

/**
 * The console may load only its own files and talk only to its own origin: no
 * inline script or style, no framing, no form posts, no <base> rewriting.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Console · Creator Data Service</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/console.css">
<script type="module" src="/console/assets/console.js"></script>
</head><body><div id="app"><p class="boot">Loading the console…</p></div>
<noscript>The console needs JavaScript; the API itself is documented at /docs.</noscript></body></html>`;

const AssetParams = z.object({ file: z.string().max(64) });

/** GET /console: the web console (a static page calling /v1 with the key the user pastes) and its assets. */
export function consoleRoutes(kit: RouteKit): Router {
  const router = new Router();
  const page = {
    path: '/console',
    operationId: 'getConsole',
    summary: 'The web console (sign in with an API key; it uses only this /v1 API)',
  };
  definePage(kit, router, page, PAGE, (ctx) => {
    pageHeaders(ctx);
    ctx.set('Cache-Control', 'no-cache');
  });
  const assets = {
    path: '/console/assets/{file}',
    operationId: 'getConsoleAsset',
    summary: 'Script and stylesheet of the console',
    params: AssetParams,
    contentType: ['text/javascript', 'text/css'],
  };
  defineAssets(kit, router, assets, async (ctx, file) => {
    const asset = (await consoleAssets()).get(file);
    if (!asset) throw new NotFoundError(`no console asset ${file}`);
    pageHeaders(ctx);
    // not immutable: the name carries no hash, so a restarted server's new code must be fetched again
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = asset.type;
    ctx.body = asset.body;
  });
  return router;
}

function pageHeaders(ctx: Context): void {
  ctx.set('Content-Security-Policy', CONSOLE_CSP);
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Frame-Options', 'DENY');
}
