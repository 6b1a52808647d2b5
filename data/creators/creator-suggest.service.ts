import type { Store } from '../store.js';
import { dataVersion } from './creator-search.queries.js';
import { selectVocabulary, type SuggestField, type VocabularyRow } from './creator-suggest.queries.js';
import { DataVersion } from './data-version.js';

export { SUGGEST_FIELDS, type SuggestField } from './creator-suggest.queries.js';

/** One suggestion: a value as the search parameter takes it, and how many creators have it. */
export interface Suggestion {
  value: string;
  creators: number;
}

/** A prefix range up to this size is scanned directly; a wider one walks the values by popularity instead. */
const RANGE_SCAN_MAX = 4096;

/**
 * A field's values, sorted two ways: by value (a prefix is a contiguous range,
 * found by binary search) and by creators (the most used first, for short
 * prefixes that match much of the vocabulary).
 */
class Vocabulary {
  private readonly byValue: VocabularyRow[];
  private readonly byCreators: VocabularyRow[];

  constructor(rows: VocabularyRow[]) {
    this.byValue = [...rows].sort((a, b) => compare(a.value, b.value));
    this.byCreators = [...rows].sort(byPopularity);
  }

  get size(): number {
    return this.byValue.length;
  }

  /** The `limit` most used values starting with `prefix`, most creators first (ties by value). */
  top(prefix: string, limit: number): VocabularyRow[] {
    if (prefix === '') return this.byCreators.slice(0, limit);
    const from = this.lowerBound(prefix);
    const to = this.lowerBound(`${prefix}\uffff`);
    if (to - from <= RANGE_SCAN_MAX) return this.byValue.slice(from, to).sort(byPopularity).slice(0, limit);
    const out: VocabularyRow[] = [];
    for (const row of this.byCreators) {
      if (row.value.startsWith(prefix) && out.push(row) >= limit) break;
    }
    return out;
  }

  private lowerBound(key: string): number {
    let lo = 0;
    let hi = this.byValue.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(this.byValue[mid]!.value, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const byPopularity = (a: VocabularyRow, b: VocabularyRow): number =>
  b.creators - a.creators || compare(a.value, b.value);

/** The least time between two rebuilds of a field: counting a field's values at 1M creators takes seconds of CPU. */
export const SUGGEST_REFRESH_MS = 60_000;

export interface SuggestOptions {
  /** Registers a background rebuild (the app waits for it on shutdown; tests wait for it). */
  track?: (work: Promise<unknown>) => void;
  /** How often the data version is looked up (default 1 s). */
  versionCheckMs?: number;
  /** The least time between two rebuilds of one field (default `SUGGEST_REFRESH_MS`). */
  refreshMs?: number;
  now?: () => number;
}

interface Entry {
  version: string;
  vocabulary: Promise<Vocabulary>;
  builtAt: number;
  refreshing: boolean;
}

/**
 * Suggestions for the search's free-valued filters, answered from the store's
 * values of each field, held in memory per field and rebuilt when the data
 * version moves, at most once per `refreshMs`. A rebuild runs in the background
 * while the previous values keep answering, so a typing user never waits on one;
 * only the first request of a field waits for its build. Suggestions may so be up
 * to a minute behind the data; the search itself never is.
 */
export class SuggestService {
  private readonly version: DataVersion;
  private readonly cache = new Map<SuggestField, Entry>();
  private readonly now: () => number;

  constructor(
    private readonly store: Store,
    private readonly options: SuggestOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.version = new DataVersion(() => dataVersion(store), options.versionCheckMs ?? 1_000, this.now);
  }

  /** The values of `field` starting with `prefix` (any case; `#`/`@` optional), most creators first. */
  async suggest(field: SuggestField, prefix: string, limit: number): Promise<Suggestion[]> {
    const vocabulary = await this.vocabulary(field);
    const rows = vocabulary.top(normalisePrefix(field, prefix), limit);
    return rows.map((r) => ({ value: field === 'mentions' ? `@${r.value}` : r.value, creators: r.creators }));
  }

  /** Every value of `field`, by value (for small fields such as interests). */
  async all(field: SuggestField): Promise<string[]> {
    const vocabulary = await this.vocabulary(field);
    return vocabulary
      .top('', vocabulary.size)
      .map((r) => r.value)
      .sort(compare);
  }

  /** Forgets the version seen: the next request looks again (after a write through the API). */
  invalidate(): void {
    this.version.reset();
  }

  private async vocabulary(field: SuggestField): Promise<Vocabulary> {
    const version = await this.version.get();
    const cached = this.cache.get(field);
    if (cached?.version === version) return cached.vocabulary;
    if (!cached) {
      const vocabulary = this.build(field);
      this.cache.set(field, { version, vocabulary, builtAt: this.now(), refreshing: false });
      vocabulary.catch(() => this.cache.delete(field));
      return vocabulary;
    }
    // the previous values answer until the new ones are built; a failed build keeps them and a later request tries again
    if (!cached.refreshing && this.now() - cached.builtAt >= (this.options.refreshMs ?? SUGGEST_REFRESH_MS)) {
      cached.refreshing = true;
      const startedAt = this.now();
      this.options.track?.(
        this.build(field).then(
          (v) => {
            this.cache.set(field, { version, vocabulary: Promise.resolve(v), builtAt: startedAt, refreshing: false });
          },
          () => {
            cached.refreshing = false;
          },
        ),
      );
    }
    return cached.vocabulary;
  }

  private async build(field: SuggestField): Promise<Vocabulary> {
    return new Vocabulary(await selectVocabulary(this.store, field));
  }
}

/** A prefix as the field stores its values: lower case, hashtags and mentions without their sign, brands with `@`. */
function normalisePrefix(field: SuggestField, prefix: string): string {
  const p = prefix.trim().toLowerCase();
  if (field === 'hashtags') return p.replace(/^#/, '');
  if (field === 'mentions') return p.replace(/^@/, '');
  if (field === 'brands') return p === '' || p.startsWith('@') ? p : `@${p}`;
  return p;
}
