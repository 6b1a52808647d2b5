import type { Queryable } from '../store.js';
import type { ScoredLabel } from './evaluation.js';

/**
 * The demo dataset's ground truth (creator_labels) with each creator's
 * precomputed score (and the probability it stands for, 1 − score / 100).
 */
export async function selectDemoLabelled(store: Pick<Queryable, 'all'>): Promise<ScoredLabel[]> {
  const rows = await store.all<{ score: number | null; label: string; pattern: string | null }>(`SELECT
      c.authenticity_score AS score, l.label, l.pattern FROM creator_labels l JOIN creators c USING (creator_id)`);
  return rows
    .filter((r) => r.score !== null)
    .map((r) => ({
      score: Number(r.score),
      probability: 1 - Number(r.score) / 100,
      label: r.label,
      fraud: r.label !== 'authentic',
      pattern: r.pattern,
    }));
}
