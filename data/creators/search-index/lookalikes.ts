import type { CreatorItem } from '../creator-item.js';
import type { CreatorSearchFilters } from '../creator-search.types.js';
import type { SearchContext } from '../search-context.js';
import { baseProfile, deltaProfile, lookalikeModel, type LookalikeProfile } from './lookalike-model.js';
import { lookalikeReasons, type LookalikeReason } from './lookalike-reasons.js';
import {
  compareProfiles,
  rankLookalikes,
  type LookalikeBasis,
  type LookalikeKeyset,
  type LookalikeMatch,
} from './lookalike-search.js';
import type { SearchIndex } from './search-index.js';

export interface LookalikeSearch {
  /** The creator the answer is like. */
  creatorId: number;
  basis: LookalikeBasis;
  filters: CreatorSearchFilters;
  context: SearchContext;
  after: LookalikeKeyset | null;
  /** Matches to return; one more is looked for to know whether a further page follows. */
  limit: number;
}

export interface LookalikeItem extends CreatorItem {
  similarity: number;
  reasons: LookalikeReason[];
}

export interface LookalikePage {
  creator: CreatorItem;
  creators: LookalikeItem[];
  next: LookalikeKeyset | null;
}

/**
 * A lookalike search answered from the search index: the candidates are the
 * creators the filters match (the index's own filter machinery), ranked by the
 * vectors prepared when the index was built (lookalike-model.ts); changed
 * creators since the build are compared from their current rows. Null when
 * the creator is not in the index.
 */
export function searchLookalikes(index: SearchIndex, search: LookalikeSearch): LookalikePage | null {
  const target = profileOf(index, search.creatorId);
  const creator = index.item(search.creatorId);
  if (!target || !creator) return null;
  const found = rank(index, target, { ...search, limit: search.limit + 1 });
  const page = found.slice(0, search.limit);
  const last = page.at(-1);
  return {
    creator,
    creators: page.map((m) => itemOf(index, target, m, search.basis)),
    next: found.length > search.limit && last ? [last.similarity, last.creator_id] : null,
  };
}

/**
 * The `search.limit` most similar matches after the keyset, without their items and
 * reasons (what a page is cut from); null when the creator is not in the index.
 */
export function rankedLookalikes(index: SearchIndex, search: LookalikeSearch): LookalikeMatch[] | null {
  const target = profileOf(index, search.creatorId);
  return target ? rank(index, target, search) : null;
}

function rank(index: SearchIndex, target: LookalikeProfile, search: LookalikeSearch): LookalikeMatch[] {
  const view = index.lookalikeView();
  const model = lookalikeModel(view.data);
  const matching = index.matching(search.filters, search.context);
  return rankLookalikes(
    model,
    view.data.ids,
    view.data.categorical.niche,
    {
      base: matching.base,
      live: view.live,
      delta: matching.delta.map((row) => ({ creatorId: row.creator_id, profile: deltaProfile(model, view.data, row) })),
    },
    { basis: search.basis, target, targetId: search.creatorId, after: search.after, limit: search.limit },
    index.basePosition(search.creatorId),
  );
}

function profileOf(index: SearchIndex, creatorId: number): LookalikeProfile | null {
  const view = index.lookalikeView();
  const model = lookalikeModel(view.data);
  const changed = view.delta.find((r) => r.creator_id === creatorId);
  if (changed) return deltaProfile(model, view.data, changed);
  const p = index.basePosition(creatorId);
  return p < 0 ? null : baseProfile(model, view.data, p);
}

function itemOf(
  index: SearchIndex,
  target: LookalikeProfile,
  match: LookalikeMatch,
  basis: LookalikeBasis,
): LookalikeItem {
  const view = index.lookalikeView();
  const model = lookalikeModel(view.data);
  const other = profileOf(index, match.creator_id)!;
  const figures = compareProfiles(model, target, other);
  const reasons = lookalikeReasons(model, view.data.categorical.niche.dictionary, target, other, {
    content: basis === 'audience' ? null : figures.content,
    audience: basis === 'content' ? null : figures.audience,
  });
  return { ...index.item(match.creator_id)!, similarity: match.similarity, reasons };
}
