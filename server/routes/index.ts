import type { RoutesFactory } from '../http/route-kit.js';
import { accountRoutes } from './account.routes.js';
import { creatorsRoutes } from './creators.routes.js';
import { docsRoutes } from './docs.routes.js';
import { metaRoutes } from './meta.routes.js';
import { verifyRoutes } from './verify.routes.js';

/**
 * Every router the app mounts, in order. Add ONE line per resource
 * (see server/README.md, "How to add an endpoint").
 */
export const ROUTES: readonly RoutesFactory[] = [
  metaRoutes,
  docsRoutes,
  accountRoutes,
  creatorsRoutes,
  verifyRoutes,
];
