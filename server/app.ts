import Koa from 'koa';
import type { Config } from '../config/config.js';
import type { Logger } from '../config/logger.js';
import type { Store } from '../data/store.js';

/** What the app needs from the process that starts it. */
export interface AppDeps {
  store: Store;
  config: Readonly<Config>;
  logger: Logger;
}

/** Builds the Koa app; it never listens and never reads the environment. */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa();
  app.proxy = false;
  app.use(async (ctx, next) => {
    if (ctx.path === '/healthz') {
      ctx.body = { status: 'ok' };
      return;
    }
    if (ctx.path === '/readyz') {
      const ready = await deps.store.one('SELECT 1 AS ok').then(() => true, () => false);
      ctx.status = ready ? 200 : 503;
      ctx.body = { status: ready ? 'ready' : 'unavailable' };
      return;
    }
    await next();
  });
  return app;
}
