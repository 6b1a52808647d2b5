import type { RoutesFactory } from '../http/route-kit.js';
import { accountRoutes } from './account.routes.js';
import { audienceOverlapRoutes } from './audience-overlap.routes.js';
import { campaignsRoutes } from './campaigns.routes.js';
import { consoleRoutes } from '../console/console.routes.js';
import { contactsRoutes } from './contacts.routes.js';
import { creatorsRoutes } from './creators.routes.js';
import { docsRoutes } from './docs.routes.js';
import { exportsRoutes } from './exports.routes.js';
import { keysRoutes } from './keys.routes.js';
import { listsRoutes } from './lists.routes.js';
import { metaRoutes } from './meta.routes.js';
import { runsRoutes } from './runs.routes.js';
import { usageRoutes } from './usage.routes.js';
import { verifyRoutes } from './verify.routes.js';
import { webhooksRoutes } from './webhooks.routes.js';

/**
 * Every router the app mounts, in order. Add ONE line per resource
 * (see server/README.md, "How to add an endpoint").
 */
export const ROUTES: readonly RoutesFactory[] = [
  metaRoutes,
  docsRoutes,
  consoleRoutes,
  accountRoutes,
  keysRoutes,
  usageRoutes,
  creatorsRoutes,
  contactsRoutes,
  audienceOverlapRoutes,
  verifyRoutes,
  listsRoutes,
  campaignsRoutes,
  runsRoutes,
  exportsRoutes,
  webhooksRoutes,
];
