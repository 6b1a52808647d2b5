import type { CreatorItem } from '../../../../data/creators/creator-item.js';
import { allPages } from '../api.js';
import { actionButton, h, replace, table } from '../dom.js';
import { int, pct } from '../format.js';
import { guarded, heading, message, type View } from '../view.js';
import { searchForm, searchParameters } from './search-form.js';

/** A Creator item of the search (CreatorItem in the OpenAPI document): the API's own type. */
export type { CreatorItem };

interface SearchPage {
  results: number;
  creators: CreatorItem[];
  next_cursor: string | null;
}
export interface ListItem {
  id: string;
  name: string;
  creators_count: number;
}

export const EXPORT_FORMATS = ['csv', 'json', 'ndjson', 'parquet', 'arrow'];

/** The profile route of a creator. */
export function profileHref(c: { platform: string; handle: string }): string {
  return `#/creators/${encodeURIComponent(c.platform)}/${encodeURIComponent(c.handle)}`;
}

/** #/creators?…: the search with every filter and sort, paging by cursor, and actions on the results. */
export async function creatorsPage(view: View): Promise<void> {
  const [meta, doc] = await Promise.all([view.meta(), view.openapi()]);
  const query = new URLSearchParams(view.query);
  const form = searchForm(view.api, searchParameters(doc), meta, query, (q) => view.go(`#/creators?${q}`));
  const results = h('section', { 'aria-labelledby': 'results-title', 'aria-live': 'polite' });
  replace(view.root, heading('Creators'), form, results);
  const page = await view.api.get<SearchPage>('/v1/creators/search', Object.fromEntries(query));
  if (view.signal.aborted) return;
  const selected = new Set<CreatorItem>();
  replace(
    results,
    h('h2', { id: 'results-title' }, `${int(page.results)} creators match`),
    resultActions(view, query, selected),
    resultsTable(page.creators, selected),
    pager(query, page.next_cursor),
  );
}

function resultsTable(creators: CreatorItem[], selected: Set<CreatorItem>): HTMLElement {
  return table(
    ['', 'Creator', 'Platform', 'Niche', 'Country', 'Followers', 'Engagement', 'US audience', 'Verified'],
    creators.map((c) => [
      h('input', {
        type: 'checkbox',
        'aria-label': `Select ${c.handle} on ${c.platform}`,
        onchange: (e) => {
          if ((e.target as HTMLInputElement).checked) selected.add(c);
          else selected.delete(c);
        },
      }),
      h('a', { href: profileHref(c) }, c.handle, c.display_name ? h('span', { class: 'sub' }, c.display_name) : null),
      c.platform,
      c.niche,
      c.country ?? '–',
      int(c.followers),
      pct(c.engagement_rate),
      pct(c.audience_us_pct),
      c.verified ? 'yes' : 'no',
    ]),
    'No creator matches these filters.',
  );
}

function pager(query: URLSearchParams, next: string | null): HTMLElement {
  const nextQuery = new URLSearchParams(query);
  if (next) nextQuery.set('cursor', next);
  const first = new URLSearchParams(query);
  first.delete('cursor');
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Result pages' },
    query.has('cursor') ? h('a', { href: `#/creators?${first}` }, '« First page') : null,
    query.has('cursor') ? h('button', { type: 'button', onclick: () => history.back() }, '‹ Previous page') : null,
    next
      ? h('a', { href: `#/creators?${nextQuery}`, class: 'button', rel: 'next' }, 'Next page ›')
      : h('span', { class: 'sub' }, 'Last page'),
  );
}

/** "Add selected to a list" and "Export this search" (offered only with the scopes they need). */
function resultActions(view: View, query: URLSearchParams, selected: Set<CreatorItem>): HTMLElement {
  const slot = h('div', { class: 'slot' });
  const bar = h('div', { class: 'actions' });
  if (view.can('lists:write')) bar.append(addToListControl(view, slot, () => [...selected]));
  if (view.can('exports:write')) bar.append(exportControl(view, slot, query));
  return h('div', null, bar, slot);
}

/** A list picker and a button adding the chosen creators to it. */
export function addToListControl(
  view: View,
  slot: HTMLElement,
  chosen: () => CreatorItem[] | Array<{ handle: string; platform: string }>,
): HTMLElement {
  const select = h('select', { id: 'add-to-list', name: 'list' }, h('option', { value: '' }, 'Loading lists…'));
  void allPages<ListItem>(view.api, '/v1/lists').then((lists) =>
    replace(
      select,
      h('option', { value: '' }, lists.length ? 'Choose a list' : 'No list yet: create one on Lists'),
      lists.map((l) => h('option', { value: l.id }, `${l.name} (${int(l.creators_count)})`)),
    ),
  );
  const add = actionButton('Add selected to list', () =>
    guarded(slot, async () => {
      const creators = chosen().map((c) => ({ handle: c.handle, platform: c.platform }));
      if (!select.value) throw new Error('Choose a list first.');
      if (creators.length === 0) throw new Error('Tick the creators to add first.');
      const r = await view.api.send<{ added: number; already_present: number; not_found: unknown[] }>(
        'POST',
        `/v1/lists/${select.value}/creators`,
        { creators },
      );
      replace(
        slot,
        message('ok', `Added ${r.added}; ${r.already_present} already there; ${r.not_found.length} not found.`),
      );
    }),
  );
  return h('div', { class: 'inline' }, h('label', { for: 'add-to-list' }, 'List'), select, add);
}

function exportControl(view: View, slot: HTMLElement, query: URLSearchParams): HTMLElement {
  const format = h(
    'select',
    { id: 'export-format', name: 'format' },
    EXPORT_FORMATS.map((f) => h('option', { value: f }, f.toUpperCase())),
  );
  const go = actionButton('Export this search', () =>
    guarded(slot, async () => {
      const filters = Object.fromEntries([...query].filter(([k]) => k !== 'cursor' && k !== 'limit'));
      await view.api.send('POST', '/v1/exports', { source: 'search', filters, format: format.value });
      view.go('#/exports');
    }),
  );
  return h('div', { class: 'inline' }, h('label', { for: 'export-format' }, 'Format'), format, go);
}
