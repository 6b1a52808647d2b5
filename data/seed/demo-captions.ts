import { sqlString } from '../sql.js';
import {
  CAPTION_ENDINGS,
  CAPTION_WORDS,
  CROSS_NICHE_HASHTAGS,
  EMOJI_CAPTIONS,
  NICHE_BRANDS,
  NICHE_HASHTAGS,
} from './content-vocabulary.js';
import { NICHES } from './reference-data.js';

/**
 * Demo post content in SQL, shared by the seed and the demo feed so both write
 * the same world: captions in the creator's language mixing words, hashtags of
 * its niche (Zipf-like: a few tags on many posts, a long tail on few), mentions
 * of other creators and of brands; sponsored posts name a brand of the niche
 * and most say `#ad`.
 */

/** SQL of a uniform draw in (0, 1) for the current row and an SQL salt expression (so a lambda's index can vary it). */
export type RandSql = (salt: string) => string;

const list = (values: readonly string[]): string => `[${values.map(sqlString).join(', ')}]::VARCHAR[]`;

/** `(niche, tags, brands)`: each niche's hashtags (most used first) and its brands. */
export function nicheVocabularySql(): string {
  return `SELECT * FROM (VALUES ${NICHES.map((n) => `(${sqlString(n)}, ${list(NICHE_HASHTAGS[n])}, ${list(NICHE_BRANDS[n])})`).join(', ')})
    v(niche, tags, brands)`;
}

/** `(language, words)`: caption words by language; other languages fall back to English (`FALLBACK_WORDS_SQL`). */
export function languageWordsSql(): string {
  return `SELECT * FROM (VALUES ${Object.entries(CAPTION_WORDS)
    .map(([l, w]) => `(${sqlString(l)}, ${list(w)})`)
    .join(', ')})
    w(language, words)`;
}

/** The English words, for a language without a list (`coalesce(w.words, …)`). */
export const FALLBACK_WORDS_SQL = list(CAPTION_WORDS['en'] ?? []);

/** A Zipf-like rank in 1..len: P(k) ∝ log((k+1)/k), about 1/k. */
function zipfRank(u: string, length: string): string {
  return `floor(exp(${u} * ln(${length} + 1)))::BIGINT`;
}

/** The element at a Zipf rank, the ranks shifted by `shift` (a creator's own favourites) and wrapped. */
function zipfPick(values: string, u: string, shift: string): string {
  return `(${values})[1 + (${zipfRank(u, `len(${values})`)} - 1 + ${shift}) % len(${values})]`;
}

function uniformPick(values: string, u: string): string {
  return `(${values})[1 + least(floor(${u} * len(${values}))::BIGINT, len(${values}) - 1)]`;
}

/**
 * A creator's share of sponsored posts: a long tail — about half never post
 * sponsored content, most others a few percent, some a third or more; big
 * accounts more often sponsored. `u1`, `u2`: per-creator draws.
 */
export function sponsorRateSql(followers: string, u1: string, u2: string): string {
  return `CASE WHEN ${u1} < 0.55 - 0.1 * greatest(0, log10(greatest(${followers}, 1)) - 5) THEN 0
    WHEN ${u1} < 0.88 THEN 0.02 + 0.12 * ${u2} ELSE 0.2 + 0.3 * ${u2} END`;
}

/** The sponsoring brand of a sponsored post (a few name none: only `#ad` says it), from the niche's `brands`. */
export function brandSql(sponsored: string, brands: string, shift: string, rand: RandSql): string {
  return `CASE WHEN ${sponsored} AND ${rand("'brand_named'")} < 0.85 THEN ${zipfPick(brands, rand("'brand'"), shift)} END`;
}

export interface CaptionBodyColumns {
  /** The niche's hashtags and the creator's language's words (VARCHAR[]). */
  tags: string;
  words: string;
  /** How far the creator's favourite tags sit from the niche's (an integer; 0 for none). */
  tagShift: string;
}

/**
 * A caption's body: a few words, now and then a tag up front, hashtags of the
 * niche, sometimes a tag every niche uses. A few shout their tags in capitals
 * (what the parser lower-cases).
 */
export function captionBodySql(c: CaptionBodyColumns, rand: RandSql): string {
  const tag = (salt: string): string => zipfPick(c.tags, rand(salt), c.tagShift);
  const words = `array_to_string(list_transform(range(2 + floor(${rand("'n_words'")} * 10)::BIGINT),
      i -> ${uniformPick(c.words, rand(`'w' || i`))}), ' ')`;
  const tags = `nullif(array_to_string(list_transform(range(floor(${rand("'n_tags'")} * 6)::BIGINT), i -> '#' || ${tag(`'t' || i`)}), ' '), '')`;
  return `concat_ws(' ',
      CASE WHEN ${rand("'lead'")} < 0.12 THEN '#' || ${tag("'lead_tag'")} END,
      ${words},
      CASE WHEN ${rand("'shout'")} < 0.06 THEN upper(${tags}) ELSE ${tags} END,
      CASE WHEN ${rand("'cross'")} < 0.25 THEN '#' || ${zipfPick(list(CROSS_NICHE_HASHTAGS), rand("'cross_tag'"), '0')} END)`;
}

/** What a caption ends with: mostly nothing, else emoji, a flag, odd punctuation. */
export function captionEndingSql(rand: RandSql): string {
  return uniformPick(list(CAPTION_ENDINGS), rand("'ending'"));
}

export interface CaptionColumns {
  /** The caption's body and ending (captionBodySql, captionEndingSql). */
  body: string;
  ending: string;
  sponsored: string;
  /** The post's brand (`@…`) or NULL. */
  brand: string;
  /** Another creator's handle (`@…`) the post mentions, or NULL. */
  mention: string;
}

/**
 * What a post adds to its caption's body: the creator it mentions, most often
 * its brand, `#ad` on most sponsored posts (always when no brand is named);
 * '' when none of them.
 */
export function captionSuffixSql(c: Omit<CaptionColumns, 'body' | 'ending'>, rand: RandSql): string {
  return `concat_ws(' ', ${c.mention},
      CASE WHEN ${rand("'brand_mention'")} < 0.7 THEN ${c.brand} END,
      CASE WHEN ${c.sponsored} AND (${c.brand} IS NULL OR ${rand("'ad'")} < 0.6) THEN ${uniformPick("['#ad', '#ad', '#AD', '#Ad']", rand("'ad_form'"))} END)`;
}

/** Whether a post's caption is its body and suffix (else NULL or emoji only: no tags, mentions or words). */
export function captionHasBodySql(rand: RandSql): string {
  return `${rand("'caption'")} >= 0.06`;
}

/**
 * A post's caption: NULL for some posts, emoji only for some; else its body,
 * its suffix (captionSuffixSql, or the column `suffix` names) and its ending.
 * Endings hold no `#` or `@`, so a caption's hashtags and mentions are its
 * body's and its suffix's (what the seed relies on to parse bodies once).
 */
export function captionSql(c: CaptionColumns & { suffix?: string }, rand: RandSql): string {
  return `CASE WHEN ${rand("'caption'")} < 0.04 THEN NULL
    WHEN NOT (${captionHasBodySql(rand)}) THEN ${uniformPick(list(EMOJI_CAPTIONS), rand("'emoji'"))}
    ELSE concat_ws(' ', ${c.body}, nullif(${c.suffix ?? captionSuffixSql(c, rand)}, '')) || ${c.ending} END`;
}

/** The post type by platform (post | reel | short | video | story | live). */
export function postTypeSql(platform: string, u: string): string {
  return `CASE ${platform} WHEN 'tiktok' THEN ${uniformPick("['video', 'video', 'video', 'video', 'live']", u)}
    WHEN 'youtube' THEN ${uniformPick("['video', 'video', 'short', 'short', 'live']", u)}
    WHEN 'twitch' THEN ${uniformPick("['live', 'live', 'live', 'video']", u)}
    WHEN 'x' THEN ${uniformPick("['post', 'post', 'post', 'video']", u)}
    ELSE ${uniformPick("['post', 'post', 'reel', 'reel', 'story']", u)} END`;
}
