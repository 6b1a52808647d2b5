import type { AudienceOverlap } from '../../../../data/audience-overlap/overlap.service.js';
import { ApiError } from '../api.js';
import { chartFigure, PALETTE, stackedBars } from '../charts.js';
import { actionButton, h, replace, table } from '../dom.js';
import { int, pct } from '../format.js';
import { guarded, message, type View } from '../view.js';

/** At most this many creators go into one overlap (the API's limit). */
const MAX_CREATORS = 10;

interface Ref {
  handle: string;
  platform: string;
}

/**
 * The audience overlap of a list's creators (the first ten of the page), asked
 * for with a button since each answer is a metered call. Creators without a
 * follower sample are named and left out, and the rest compared.
 */
export function overlapCard(view: View, members: readonly Ref[]): HTMLElement | null {
  if (members.length < 2) return null;
  const refs = members.slice(0, MAX_CREATORS).map((m) => ({ handle: m.handle, platform: m.platform }));
  const slot = h('div', { class: 'slot' });
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'overlap-title' },
    h('h2', { id: 'overlap-title' }, 'Audience overlap'),
    h(
      'p',
      null,
      `How many of the audiences of the first ${refs.length} creators here are the same people (one metered call). `,
      actionButton('Compare audiences', () => guarded(slot, () => compare(view, slot, refs))),
    ),
    slot,
  );
}

async function compare(view: View, slot: HTMLElement, refs: readonly Ref[]): Promise<void> {
  let missing: Ref[] = [];
  let answer: AudienceOverlap;
  try {
    answer = await view.api.send<AudienceOverlap>('POST', '/v1/audience-overlap', { creators: refs });
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'follower_sample_missing') throw error;
    missing = (error.extensions['creators'] as Ref[] | undefined) ?? [];
    const rest = refs.filter((r) => !missing.some((m) => m.handle === r.handle && m.platform === r.platform));
    if (rest.length < 2) {
      replace(
        slot,
        message('info', `Too few of these creators have a follower sample to compare (${names(missing)} have none).`),
      );
      return;
    }
    answer = await view.api.send<AudienceOverlap>('POST', '/v1/audience-overlap', { creators: rest });
  }
  if (view.signal.aborted) return;
  replace(slot, ...overlapView(answer, missing));
}

const names = (refs: readonly Ref[]): string => refs.map((r) => `${r.handle} (${r.platform})`).join(', ');

function overlapView(o: AudienceOverlap, missing: readonly Ref[]): HTMLElement[] {
  const labels = o.creators.map((c) => c.handle);
  return [
    h(
      'p',
      { class: 'overlap-summary' },
      `${int(o.unique_followers)} unique followers of ${int(o.total_followers)} in all: ${pct(o.unique_pct)} unique, ${pct(o.overlap_pct)} overlap`,
      o.error_margin_pct > 0 ? ` (± ${o.error_margin_pct} points per creator)` : '',
      '.',
    ),
    missing.length > 0 ? message('info', `Left out, no follower sample: ${names(missing)}.`) : null,
    chartFigure(
      'Unique and overlapping followers per creator (%)',
      (canvas) =>
        stackedBars(canvas, labels, [
          { label: 'Unique', data: o.creators.map((c) => c.unique_pct), color: PALETTE[0] ?? '#2563eb' },
          {
            label: 'Also follow another',
            data: o.creators.map((c) => c.overlapping_pct),
            color: PALETTE[2] ?? '#d97706',
          },
        ]),
      o.creators.map((c) => `${c.handle} ${c.unique_pct} % unique`).join(', '),
    ),
    table(
      ['Creator', 'Also follows', 'Share of the first', 'Share of the second'],
      o.pairs.map((p) => [p.a.handle, p.b.handle, pct(p.overlap_pct_of_a), pct(p.overlap_pct_of_b)]),
    ),
  ].filter((e): e is HTMLElement => e !== null);
}
