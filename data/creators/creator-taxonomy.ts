/** Search sort keys (CONTRACT §5); `-key` sorts descending. Each maps to a `creators` column. */
export const SORT_KEYS = ['followers', 'engagement_rate', 'growth_30d', 'authenticity_score'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

/** Audience gender keys and age ranges (CONTRACT §9). */
export const GENDERS = ['female', 'male', 'other'] as const;
export const AGE_RANGES = ['13-17', '18-24', '25-34', '35-44', '45-54', '55-64', '65+'] as const;

/** Authenticity verdicts (CONTRACT §5): authentic ≥ 80, questionable 60–79, suspicious < 60. */
export const VERDICTS = ['authentic', 'questionable', 'suspicious'] as const;
