import type { Store } from '../store.js';

/** The fields suggestions are answered for: the search's free-valued list filters. */
export const SUGGEST_FIELDS = ['hashtags', 'mentions', 'brands', 'interests'] as const;
export type SuggestField = (typeof SUGGEST_FIELDS)[number];

export interface VocabularyRow extends Record<string, unknown> {
  value: string;
  creators: number;
}

// constant SQL per field (never text from a request): each creator's list holds a value once, so count(*) counts creators
const VOCABULARY_SQL: Readonly<Record<SuggestField, string>> = {
  hashtags:
    'SELECT v AS value, count(*)::INTEGER AS creators FROM (SELECT unnest(hashtags) AS v FROM creator_content) GROUP BY v',
  mentions:
    'SELECT v AS value, count(*)::INTEGER AS creators FROM (SELECT unnest(mentions) AS v FROM creator_content) GROUP BY v',
  brands:
    'SELECT v AS value, count(*)::INTEGER AS creators FROM (SELECT unnest(brands) AS v FROM creator_content) GROUP BY v',
  interests: `SELECT key AS value, count(DISTINCT creator_id)::INTEGER AS creators FROM audience
    WHERE dimension = 'interest' AND pct > 0 GROUP BY key`,
};

/** Every value of a field in the store with how many creators have it (hashtags and mentions without their sign, brands with `@`). */
export function selectVocabulary(store: Store, field: SuggestField): Promise<VocabularyRow[]> {
  return store.all<VocabularyRow>(VOCABULARY_SQL[field]);
}
