import { Bitset } from './bitset.js';
import { ArrayStrings, type StringList } from './packed-strings.js';
import { bitArraysWithin, recent } from './recent.js';

/** Each trigram's ascending token ids: a Map while built, sorted packed keys once opened from files. */
export interface TrigramLookup {
  get(gram: string): Int32Array | undefined;
}

/**
 * The text half of the search index: every distinct space-separated token of
 * `search_text` with the positions of the creators whose text holds it, and a
 * trigram index over the tokens.
 *
 * A query word has no whitespace, so it appears in a creator's text exactly when
 * it appears inside one of the text's tokens: the creators matching a word are
 * the union of the postings of the tokens containing it. That keeps today's rule
 * (`contains(search_text, word)`, a substring match) while reading only the
 * tokens the trigrams point at, never the texts.
 */
export class TextIndex {
  private readonly cache = new Map<string, Bitset>();
  private readonly cacheLimit: number;

  /**
   * @param tokens distinct tokens, in token-id order
   * @param offsets `offsets[t]..offsets[t+1]` is token t's slice of `postings` (bytes)
   * @param postings creator positions, grouped by token, ascending within one and
   *   delta-coded as the term postings are (`gapCoded`: 7 bits a byte)
   * @param trigrams each trigram's token ids, ascending
   */
  constructor(
    readonly size: number,
    readonly tokens: StringList,
    readonly offsets: Uint32Array,
    readonly postings: Uint8Array,
    readonly trigrams: TrigramLookup,
  ) {
    // a bounded cache of word → matching creators: about 128 MB of bit arrays, at least 16 words (at 10M
    // creators 107 words; a common word's miss there decodes millions of postings)
    this.cacheLimit = bitArraysWithin(128, size);
  }

  /** Creators whose text contains `word` (lower-case, no whitespace). */
  matching(raw: string): Bitset {
    const word = wellFormed(raw);
    return recent(this.cache, word, this.cacheLimit, () => {
      const set = new Bitset(this.size);
      for (const t of this.tokensContaining(word)) addGaps(this.postings, this.offsets[t]!, this.offsets[t + 1]!, set);
      return set;
    });
  }

  /** Ids of the tokens that contain `word`. */
  tokensContaining(word: string): number[] {
    if (word.length < 3) return this.scan(word);
    const lists: Int32Array[] = [];
    for (const gram of new Set(trigramsOf(word))) {
      const list = this.trigrams.get(gram);
      if (!list) return [];
      lists.push(list);
    }
    lists.sort((a, b) => a.length - b.length);
    let candidates: ArrayLike<number> = lists[0]!;
    for (const list of lists.slice(1)) candidates = intersectSorted(candidates, list);
    const out: number[] = [];
    // a token holding every trigram of a longer word may still not hold the word itself
    for (let i = 0; i < candidates.length; i++) {
      const t = candidates[i]!;
      if (word.length === 3 || this.tokens.get(t).includes(word)) out.push(t);
    }
    return out;
  }

  /** Words of one or two characters have no trigram: every token is looked at (and the answer cached). */
  private scan(word: string): number[] {
    return this.tokens.containing(word);
  }
}

/**
 * The word as DuckDB receives it: a lone UTF-16 surrogate (possible from a JSON
 * body's escapes) cannot be encoded in UTF-8 and arrives as U+FFFD, so the SQL
 * matches it as U+FFFD; so does the index.
 */
export function wellFormed(word: string): string {
  return word.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

/** The trigrams of a string, in order (UTF-16 code units, as `includes` compares). */
export function trigramsOf(s: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 3 <= s.length; i++) out.push(s.slice(i, i + 3));
  return out;
}

/** Builds each trigram's ascending list of token ids. */
export function buildTrigrams(tokens: readonly string[]): Map<string, Int32Array> {
  const lists = new Map<string, number[]>();
  for (let t = 0; t < tokens.length; t++) {
    const token = tokens[t]!;
    for (let i = 0; i + 3 <= token.length; i++) {
      const gram = token.slice(i, i + 3);
      let list = lists.get(gram);
      if (!list) lists.set(gram, (list = []));
      // a gram repeated within the token is listed once: the token's id is the list's last
      if (list[list.length - 1] !== t) list.push(t);
    }
  }
  const out = new Map<string, Int32Array>();
  for (const [gram, list] of lists) out.set(gram, Int32Array.from(list));
  return out;
}

function intersectSorted(a: ArrayLike<number>, b: ArrayLike<number>): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      out.push(x);
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return out;
}

/**
 * Builds the text index from texts given one by one in position order (so a
 * store's texts are never all held at once): each text is split on spaces, its
 * tokens numbered and recorded; `finish` turns the records into postings
 * grouped by token with a counting sort.
 */
export class TextIndexBuilder {
  private readonly ids = new Map<string, number>();
  private readonly tokens: string[] = [];
  private readonly counts: number[] = [];
  private readonly lastText: number[] = [];
  private occurrences: Int32Array = new Int32Array(1 << 16);
  private readonly ends: number[] = [];
  private n = 0;

  /** The next position's text (NULL as ''). */
  add(text: string): void {
    const p = this.ends.length;
    const parts = text.split(' ');
    for (let k = 0; k < parts.length; k++) {
      const token = parts[k]!;
      if (token === '') continue;
      let id = this.ids.get(token);
      if (id === undefined) {
        id = this.tokens.length;
        this.ids.set(token, id);
        this.tokens.push(token);
        this.counts.push(0);
        this.lastText.push(-1);
      }
      if (this.lastText[id] === p) continue; // a token repeated within one text is posted once
      this.lastText[id] = p;
      this.counts[id]!++;
      if (this.n === this.occurrences.length) this.occurrences = grow(this.occurrences);
      this.occurrences[this.n++] = id;
    }
    this.ends.push(this.n);
  }

  finish(): TextIndex {
    const { tokens, counts, occurrences, ends } = this;
    const offsets = new Int32Array(tokens.length + 1);
    for (let t = 0; t < tokens.length; t++) offsets[t + 1] = offsets[t]! + counts[t]!;
    const postings = new Int32Array(this.n);
    const fill = offsets.slice(0, tokens.length);
    let i = 0;
    for (let p = 0; p < ends.length; p++) {
      for (; i < ends[p]!; i++) postings[fill[occurrences[i]!]!++] = p;
    }
    this.ids.clear();
    const coded = gapCoded(offsets, postings);
    return new TextIndex(ends.length, new ArrayStrings(tokens), coded.offsets, coded.bytes, buildTrigrams(tokens));
  }
}

function grow(a: Int32Array): Int32Array {
  const out = new Int32Array(a.length * 2);
  out.set(a);
  return out;
}

/**
 * Trigrams as sorted numeric keys (three UTF-16 code units, `a·2³² + b·2¹⁶ + c`,
 * exact in a double) with each one's slice of token ids: found by binary search,
 * three typed arrays however many trigrams there are (what the index files hold).
 */
export class PackedTrigrams implements TrigramLookup {
  /**
   * @param offsets `offsets[k]..offsets[k+1]` is trigram k's slice of `ids` (bytes)
   * @param ids each trigram's token ids, ascending, delta-coded (`gapCoded`)
   * @param counts how many tokens hold trigram k
   */
  constructor(
    readonly keys: Float64Array,
    readonly offsets: Uint32Array,
    readonly ids: Uint8Array,
    readonly counts: Int32Array,
  ) {}

  static of(lookup: TrigramLookup | ReadonlyMap<string, Int32Array>): PackedTrigrams {
    if (lookup instanceof PackedTrigrams) return lookup;
    const entries = [...(lookup as ReadonlyMap<string, Int32Array>)]
      .map(([gram, ids]) => [gramKey(gram), ids] as const)
      .sort((a, b) => a[0] - b[0]);
    const keys = new Float64Array(entries.length);
    const offsets = new Int32Array(entries.length + 1);
    const counts = new Int32Array(entries.length);
    let total = 0;
    entries.forEach(([key, list], i) => {
      keys[i] = key;
      offsets[i] = total;
      counts[i] = list.length;
      total += list.length;
    });
    offsets[entries.length] = total;
    const ids = new Int32Array(total);
    entries.forEach(([, list], i) => ids.set(list, offsets[i]!));
    const coded = gapCoded(offsets, ids);
    return new PackedTrigrams(keys, coded.offsets, coded.bytes, counts);
  }

  get(gram: string): Int32Array | undefined {
    const key = gramKey(gram);
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keys[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    if (!(lo < this.keys.length && this.keys[lo] === key)) return undefined;
    // decoded for the caller (a new array each time)
    return gapDecoded(this.ids, this.offsets[lo]!, this.offsets[lo + 1]!, new Int32Array(this.counts[lo]!));
  }
}

/**
 * Ascending lists (`values[offsets[k]..offsets[k+1])`, ascending within each)
 * delta-coded: each value as its gap from the previous one in its list (the
 * first from 0), 7 bits a byte, the high bit set on all but a gap's last byte.
 */
export function gapCoded(offsets: Int32Array, values: Int32Array): { offsets: Uint32Array; bytes: Uint8Array } {
  const lists = offsets.length - 1;
  const out = new Uint32Array(offsets.length);
  let size = 0;
  for (let k = 0; k < lists; k++) {
    let last = 0;
    for (let i = offsets[k]!; i < offsets[k + 1]!; i++) {
      let gap = values[i]! - last;
      last = values[i]!;
      size++;
      while (gap >= 128) {
        size++;
        gap >>>= 7;
      }
    }
  }
  const bytes = new Uint8Array(size);
  let n = 0;
  for (let k = 0; k < lists; k++) {
    out[k] = n;
    let last = 0;
    for (let i = offsets[k]!; i < offsets[k + 1]!; i++) {
      let gap = values[i]! - last;
      last = values[i]!;
      while (gap >= 128) {
        bytes[n++] = (gap & 127) | 128;
        gap >>>= 7;
      }
      bytes[n++] = gap;
    }
  }
  out[lists] = n;
  return { offsets: out, bytes };
}

/** Writes the values coded in `bytes[from..to)` (see `gapCoded`) into `out`, which has room for exactly them; answers `out`. */
export function gapDecoded(bytes: Uint8Array, from: number, to: number, out: Int32Array): Int32Array {
  let n = 0;
  let v = 0;
  for (let i = from; i < to; ) {
    let b = bytes[i++]!;
    let gap = b & 127;
    for (let shift = 7; b & 128; shift += 7) {
      b = bytes[i++]!;
      gap |= (b & 127) << shift;
    }
    v += gap;
    out[n++] = v;
  }
  return out;
}

/** Sets the bits of the values coded in `bytes[from..to)` (see `gapCoded`). */
export function addGaps(bytes: Uint8Array, from: number, to: number, set: Bitset): void {
  const words = set.words;
  let p = 0;
  for (let i = from; i < to; ) {
    let b = bytes[i++]!;
    let gap = b & 127;
    for (let shift = 7; b & 128; shift += 7) {
      b = bytes[i++]!;
      gap |= (b & 127) << shift;
    }
    p += gap;
    words[p >>> 5]! |= 1 << (p & 31);
  }
}

function gramKey(gram: string): number {
  return gram.charCodeAt(0) * 4_294_967_296 + gram.charCodeAt(1) * 65_536 + gram.charCodeAt(2);
}
