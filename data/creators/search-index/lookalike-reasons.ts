import { AUDIENCE_DIMS, termOf, type LookalikeModel, type LookalikeProfile } from './lookalike-model.js';

/** Why a creator came out similar: one line per thing shared. */
export interface LookalikeReason {
  kind: 'niche' | 'hashtags' | 'mentions' | 'caption_words' | 'audience';
  detail: string;
}

/** Terms named per reason; the count says how many are shared in all. */
const NAMED = 5;
/** Audience keys named in the audience reason. */
const NAMED_KEYS = 3;

const COLUMN_TEXT = {
  hashtags: { noun: 'hashtags', sign: '#' },
  mentions: { noun: 'mentions', sign: '@' },
  caption_words: { noun: 'caption words', sign: '' },
} as const;

/**
 * The reasons `b` is like `a`: the niche when the same; per content list, the
 * count of the terms both hold that the content vectors weigh (the rarest named
 * first); the audience's similarity with the keys both hold most of, as
 * `a`'s share vs `b`'s.
 */
export function lookalikeReasons(
  model: LookalikeModel,
  niches: readonly string[],
  a: LookalikeProfile,
  b: LookalikeProfile,
  figures: { content: number | null; audience: number | null },
): LookalikeReason[] {
  const out: LookalikeReason[] = [];
  if (figures.content !== null) {
    if (a.nicheCode > 0 && a.nicheCode === b.nicheCode)
      out.push({ kind: 'niche', detail: `same niche: ${niches[a.nicheCode - 1]}` });
    out.push(...contentReasons(model, a, b));
  }
  if (figures.audience !== null && figures.audience > 0) out.push(audienceReason(model, a, b, figures.audience));
  return out;
}

function contentReasons(model: LookalikeModel, a: LookalikeProfile, b: LookalikeProfile): LookalikeReason[] {
  const shared = new Map<keyof typeof COLUMN_TEXT, Array<{ term: string; w: number }>>();
  let i = 0;
  let j = 0;
  while (i < a.content.length && j < b.content.length) {
    const x = a.content[i]!;
    const y = b.content[j]!;
    if (x < y) i++;
    else if (y < x) j++;
    else {
      const { column, term } = termOf(model.content, x);
      const list = shared.get(column) ?? [];
      list.push({ term, w: model.content.weight2[x]! });
      shared.set(column, list);
      i++;
      j++;
    }
  }
  const out: LookalikeReason[] = [];
  for (const column of Object.keys(COLUMN_TEXT) as Array<keyof typeof COLUMN_TEXT>) {
    const terms = shared.get(column);
    if (!terms) continue;
    terms.sort((p, q) => q.w - p.w || (p.term < q.term ? -1 : p.term > q.term ? 1 : 0));
    const { noun, sign } = COLUMN_TEXT[column];
    const named = terms.slice(0, NAMED).map((t) => `${sign}${t.term}`);
    const more = terms.length > NAMED ? '…' : '';
    out.push({
      kind: column,
      detail: `${terms.length} shared ${terms.length === 1 ? noun.replace(/s$/, '') : noun}: ${named.join(', ')}${more}`,
    });
  }
  return out;
}

function audienceReason(
  model: LookalikeModel,
  a: LookalikeProfile,
  b: LookalikeProfile,
  similarity: number,
): LookalikeReason {
  const theirs = new Map<number, number>();
  b.audienceCodes.forEach((code, i) => {
    if (code >= 0) theirs.set(code, b.audienceShares[i]!);
  });
  const both: Array<{ label: string; mine: number; other: number }> = [];
  a.audienceCodes.forEach((code, i) => {
    const other = code >= 0 ? theirs.get(code) : undefined;
    if (other === undefined) return;
    both.push({ label: keyLabel(model, code), mine: a.audienceShares[i]!, other });
  });
  both.sort((x, y) => Math.min(y.mine, y.other) - Math.min(x.mine, x.other) || (x.label < y.label ? -1 : 1));
  const named = both
    .slice(0, NAMED_KEYS)
    .map((k) => `${k.label} ${Math.round(k.mine / 100)} % vs ${Math.round(k.other / 100)} %`);
  return {
    kind: 'audience',
    detail: `audience ${Math.round(similarity * 100)} % alike${named.length > 0 ? `: ${named.join(', ')}` : ''}${both.length > NAMED_KEYS ? '…' : ''}`,
  };
}

function keyLabel(model: LookalikeModel, code: number): string {
  const key = model.audience.keys[code]!;
  switch (AUDIENCE_DIMS[model.audience.dimOf[code]!]) {
    case 'age':
      return `age ${key}`;
    case 'language':
      return `language ${key}`;
    case 'interest':
      return `interest ${key}`;
    default:
      return key;
  }
}
