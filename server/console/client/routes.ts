import { creatorPage } from './pages/creator.js';
import { creatorsPage } from './pages/creators.js';
import { exportsPage } from './pages/exports.js';
import { keysPage } from './pages/keys.js';
import { listPage, listsPage } from './pages/lists.js';
import { usagePage } from './pages/usage.js';
import { webhookPage, webhooksPage } from './pages/webhooks.js';
import type { Page } from './view.js';

/** Every page by route name. */
export const ROUTES = {
  creators: creatorsPage,
  'creators-profile': creatorPage,
  lists: listsPage,
  'lists-detail': listPage,
  exports: exportsPage,
  webhooks: webhooksPage,
  'webhooks-detail': webhookPage,
  usage: usagePage,
  keys: keysPage,
} satisfies Record<string, Page>;

export type RouteName = keyof typeof ROUTES | 'sign-in';

const PATTERNS: ReadonlyArray<[RegExp, RouteName, string[]]> = [
  [/^sign-in$/, 'sign-in', []],
  [/^creators\/([^/]+)\/([^/]+)$/, 'creators-profile', ['platform', 'handle']],
  [/^creators$/, 'creators', []],
  [/^lists\/([^/]+)$/, 'lists-detail', ['id']],
  [/^lists$/, 'lists', []],
  [/^exports$/, 'exports', []],
  [/^webhooks\/([^/]+)$/, 'webhooks-detail', ['id']],
  [/^webhooks$/, 'webhooks', []],
  [/^usage$/, 'usage', []],
  [/^keys$/, 'keys', []],
];

/** `#/creators/instagram/@ann?x=1` → route name, path params and query. Unknown paths show the creators page. */
export function matchRoute(hash: string): { name: RouteName; params: Record<string, string>; query: URLSearchParams } {
  const [path = '', search = ''] = hash.replace(/^#\/?/, '').split('?', 2);
  const query = new URLSearchParams(search);
  for (const [pattern, name, names] of PATTERNS) {
    const m = pattern.exec(path);
    if (!m) continue;
    const params: Record<string, string> = {};
    names.forEach((n, i) => {
      params[n] = decodeURIComponent(m[i + 1] ?? '');
    });
    return { name, params, query };
  }
  return { name: 'creators', params: {}, query };
}
