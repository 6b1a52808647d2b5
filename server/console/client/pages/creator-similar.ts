import type { LookalikePage } from '../../../../data/creators/lookalike.service.js';
import { actionButton, h, replace, table } from '../dom.js';
import { int } from '../format.js';
import { guarded, type View } from '../view.js';
import { profileHref } from './creators.js';

/** The lookalike answer as the API sends it (GET /v1/creators/{handle}/lookalikes). */
type Lookalikes = Omit<LookalikePage, 'next'> & { next_cursor: string | null };

const BASES = [
  ['both', 'Content and audience'],
  ['content', 'Content'],
  ['audience', 'Audience'],
] as const;

/**
 * "Similar creators" on the profile (docs/lookalikes.md): the ten most similar
 * on the basis picked, each with its similarity and the reasons. Asked for with
 * a button, so the profile itself costs no lookalike search.
 */
export function similarSection(view: View, p: { handle: string; platform: string }): HTMLElement {
  const slot = h('div', { class: 'slot similar' });
  const basis = h(
    'select',
    { id: 'similar-basis', 'aria-label': 'Similar by' },
    ...BASES.map(([value, label]) => h('option', { value }, label)),
  );
  const show = actionButton('Show similar creators', () =>
    guarded(slot, async () => {
      const r = await view.api.get<Lookalikes>(`/v1/creators/${encodeURIComponent(p.handle)}/lookalikes`, {
        platform: p.platform,
        basis: basis.value,
        limit: '10',
      });
      replace(
        slot,
        table(
          ['Creator', 'Platform', 'Niche', 'Followers', 'Similarity', 'Why'],
          r.creators.map((c) => [
            h('a', { href: profileHref(c) }, c.handle),
            c.platform,
            c.niche,
            int(c.followers),
            `${Math.round(c.similarity * 100)} %`,
            h('ul', { class: 'reasons' }, ...c.reasons.map((reason) => h('li', null, reason.detail))),
          ]),
          'No similar creator found.',
        ),
      );
    }),
  );
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'similar-title' },
    h('h2', { id: 'similar-title' }, 'Similar creators'),
    h('div', { class: 'actions' }, basis, show),
    slot,
  );
}
