import type { CreatorProfile } from '../../../../data/creators/creator-profile.mapper.js';
import { h, table } from '../dom.js';
import { int } from '../format.js';

/** The profile's `price_estimate` block (GET /v1/creators/{handle}; docs/pricing.md). */
export type ProfilePrice = Pick<CreatorProfile, 'price_estimate'>;

const usd = (n: number): string => `$${int(Math.round(n))}`;

/** What the creator is likely to cost per post: one row per post type (low, estimate, high), and what the range rests on. */
export function priceSection(p: ProfilePrice): HTMLElement {
  const e = p.price_estimate;
  const title = h('h2', { id: 'price-title' }, 'Price per post');
  if (!e)
    return h(
      'section',
      { class: 'card', 'aria-labelledby': 'price-title' },
      title,
      h('p', { class: 'empty' }, 'No price estimate yet: no price model has been fitted.'),
    );
  const basis =
    e.basis === 'campaigns'
      ? `From ${int(e.observations)} recorded campaign price${e.observations === 1 ? '' : 's'} of this creator and the market model`
      : 'From similar creators (this creator has no recorded campaign prices)';
  return h(
    'section',
    { class: 'card price', 'aria-labelledby': 'price-title' },
    title,
    h(
      'p',
      { class: 'sub' },
      `${basis}; confidence ${e.confidence}; model ${e.model_version}. About 8 in 10 prices paid fall between low and high.`,
    ),
    table(
      ['Post type', `Low (${e.currency})`, 'Estimate', 'High'],
      e.per_type.map((t) => [t.type, usd(t.low), h('strong', null, usd(t.mid)), usd(t.high)]),
    ),
  );
}
