import type { CreatorProfile } from '../../../../data/creators/creator-profile.mapper.js';
import { chartFigure, compareBars } from '../charts.js';
import { actionButton, h, replace, table } from '../dom.js';
import { int, num, pct, when } from '../format.js';
import { guarded, message, type View } from '../view.js';

/** The profile's `content` block, `linked_accounts` and `has_contact` (GET /v1/creators/{handle}). */
export type ProfileContent = Pick<
  CreatorProfile,
  'handle' | 'platform' | 'content' | 'linked_accounts' | 'has_contact'
>;

interface Contacts {
  email: string | null;
  website: string | null;
  reveal_id: string;
  revealed_at: string;
}

/** A search of this filter alone. */
const searchHref = (param: string, value: string): string => `#/creators?${new URLSearchParams({ [param]: value })}`;

/** What the creator posts about and for whom: tags and mentions (each a search), brands, sponsored against organic engagement. */
export function contentSection(p: ProfileContent): HTMLElement {
  const c = p.content;
  const stat = (label: string, value: string) =>
    h('div', { class: 'stat' }, h('dt', null, label), h('dd', null, value));
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'content-title' },
    h('h2', { id: 'content-title' }, 'Content'),
    h(
      'dl',
      { class: 'stats' },
      stat('Sponsored posts', pct(c.sponsored_pct)),
      stat('Posts per week (90 days)', num(c.posts_per_week)),
      stat('Last posted', when(c.last_posted_at)),
      stat('Brands worked with', int(c.brands.length)),
    ),
    h('h3', null, 'Top hashtags'),
    tagList(
      c.top_hashtags.map((t) => [`#${t.tag}`, searchHref('hashtags', t.tag), t.posts]),
      'No hashtags in its stored posts.',
    ),
    h('h3', null, 'Top mentions'),
    tagList(
      c.top_mentions.map((m) => [m.handle, searchHref('mentions', m.handle), m.posts]),
      'No mentions in its stored posts.',
    ),
    h('h3', null, 'Brands worked with'),
    table(
      ['Brand', 'Sponsored posts', 'Last sponsored post'],
      c.brands.map((b) => [
        h('a', { href: searchHref('brands', b.brand) }, b.brand),
        int(b.sponsored_posts),
        when(b.last_posted_at),
      ]),
      'No sponsored post for a brand.',
    ),
    h('div', { class: 'charts' }, engagementChart(c), viewsChart(c)),
  );
}

function tagList(items: Array<[string, string, number]>, empty: string): HTMLElement {
  if (items.length === 0) return h('p', { class: 'empty' }, empty);
  return h(
    'ul',
    { class: 'tags' },
    items.map(([label, href, posts]) =>
      h(
        'li',
        null,
        h('a', { href }, label),
        h('span', { class: 'count' }, posts === 1 ? '1 post' : `${int(posts)} posts`),
      ),
    ),
  );
}

function engagementChart(c: ProfileContent['content']): HTMLElement {
  const values = [c.engagement_rate_sponsored, c.engagement_rate_organic];
  return chartFigure(
    'Engagement: sponsored vs organic posts',
    (canvas) => compareBars(canvas, ['Sponsored', 'Organic'], values, '%'),
    `sponsored ${pct(values[0])}, organic ${pct(values[1])}`,
  );
}

function viewsChart(c: ProfileContent['content']): HTMLElement | null {
  const types = Object.entries(c.avg_views_by_type).filter(([, v]) => v !== null);
  if (types.length === 0) return null;
  return chartFigure(
    'Average views by post type',
    (canvas) =>
      compareBars(
        canvas,
        types.map(([t]) => t),
        types.map(([, v]) => v),
      ),
    types.map(([t, v]) => `${t} ${num(v)}`).join(', '),
  );
}

/** Linked accounts (each its own profile here) and whether a contact is on record, with a reveal for keys that may. */
export function reachSection(view: View, p: ProfileContent): HTMLElement {
  const slot = h('div', { class: 'slot contact' });
  const reveal =
    view.can('contacts:read') && p.has_contact
      ? actionButton('Reveal contact', () =>
          guarded(slot, async () => {
            const r = await view.api.get<Contacts>(`/v1/creators/${encodeURIComponent(p.handle)}/contacts`, {
              platform: p.platform,
            });
            replace(
              slot,
              h(
                'dl',
                { class: 'stats' },
                h('div', { class: 'stat' }, h('dt', null, 'Email'), h('dd', null, r.email ?? '–')),
                h('div', { class: 'stat' }, h('dt', null, 'Website'), h('dd', null, r.website ?? '–')),
              ),
              message('info', `Reveal ${r.reveal_id} is in your account's audit log and counted in your usage.`),
            );
          }),
        )
      : null;
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'reach-title' },
    h('h2', { id: 'reach-title' }, 'Reach'),
    h(
      'p',
      null,
      p.has_contact ? 'A contact email or website is on record.' : 'No contact on record.',
      p.has_contact && !view.can('contacts:read')
        ? ' Revealing it needs a key with the contacts:read scope (enterprise plan).'
        : '',
    ),
    reveal,
    slot,
    h('h3', null, 'Also on'),
    p.linked_accounts.length === 0
      ? h('p', { class: 'empty' }, 'No linked account.')
      : h(
          'ul',
          { class: 'tags' },
          p.linked_accounts.map((l) =>
            h(
              'li',
              null,
              h(
                'a',
                { href: `#/creators/${encodeURIComponent(l.platform)}/${encodeURIComponent(l.handle)}` },
                `${l.handle} on ${l.platform}`,
              ),
            ),
          ),
        ),
  );
}
