import type { CreatorProfile } from '../../../../data/creators/creator-profile.mapper.js';
import { h } from '../dom.js';
import { int, num } from '../format.js';

/** The profile's `benchmarks` block (GET /v1/creators/{handle}; docs/benchmarks.md). */
export type ProfileBenchmarks = Pick<CreatorProfile, 'benchmarks'>;

const METRICS = [
  ['engagement_rate', 'Engagement rate'],
  ['growth_30d', '30-day growth'],
  ['avg_views', 'Average views'],
  ['authenticity_score', 'Authenticity'],
] as const;

/** Where the creator stands among its peers: one percentile bar (a meter, 0–100) per metric, and the group they come from. */
export function benchmarksSection(p: ProfileBenchmarks): HTMLElement {
  const b = p.benchmarks;
  const title = h('h2', { id: 'bench-title' }, 'Against peers');
  if (!b)
    return h(
      'section',
      { class: 'card', 'aria-labelledby': 'bench-title' },
      title,
      h('p', { class: 'empty' }, 'Not placed in a peer group yet.'),
    );
  const g = b.peer_group;
  const band =
    g.followers_to === null
      ? `${int(g.followers_from)}+ followers`
      : `${int(g.followers_from)}–${int(g.followers_to - 1)} followers`;
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'bench-title' },
    title,
    h(
      'p',
      { class: 'sub' },
      `Percentile among ${int(g.creators)} ${g.niche} creators on ${g.platform} with ${band} (0: lowest, 100: highest).`,
    ),
    h(
      'dl',
      { class: 'stats benchmarks' },
      METRICS.map(([key, label]) => {
        const value = b[key];
        return h(
          'div',
          { class: 'stat' },
          h('dt', null, label),
          h(
            'dd',
            null,
            value === null ? '–' : h('meter', { min: 0, max: 100, value, 'aria-label': `${label} percentile` }),
            ` ${value === null ? 'no value' : num(value)}`,
          ),
        );
      }),
    ),
  );
}
