import type { SqlRunner } from '../state/state-db.js';

import type { LabelRow } from './labels.js';
import { scoringSelectSql, termsSelectSql, withPeerStatsSql } from './scoring.queries.js';
import type { TrainedModel } from './trained-model.js';

/** The demo world's ground truth as labels: fraud 1 for any label but `authentic`, with the generated pattern. */
export async function selectDemoLabels(db: SqlRunner): Promise<LabelRow[]> {
  const rows = await db.all<{
    platform: string;
    handle: string;
    label: string;
    pattern: string | null;
  }>(`SELECT c.platform,
      c.handle, l.label, l.pattern FROM creator_labels l JOIN creators c USING (creator_id) ORDER BY l.creator_id`);
  return rows.map((r) => ({
    platform: r.platform,
    handle: r.handle,
    label: r.label === 'authentic' ? 0 : 1,
    pattern: r.pattern ?? r.label,
  }));
}

/** A labelled creator found in the store, with what the query added. */
export interface Matched<T> {
  label: LabelRow;
  creatorId: number;
  row: T;
}

/** Which labels name creators of the store, set-based; `missing` lists the others (unknown or not yet scored). */
async function match<T extends Record<string, unknown>>(
  db: SqlRunner,
  labels: readonly LabelRow[],
  relation: string,
): Promise<{ matched: Array<Matched<T>>; missing: LabelRow[] }> {
  const rows = await db.all<T & { i: number; creator_id: number }>(
    `WITH l AS (
      SELECT unnest(?::VARCHAR[]) AS platform, unnest(?::VARCHAR[]) AS handle, unnest(range(0, ?)) AS i
    ), m AS (SELECT l.i, c.creator_id FROM l JOIN creators c ON c.platform = l.platform AND c.handle = l.handle)
    SELECT m.i, s.* FROM m JOIN ${relation.replace('$SCOPE', 'SELECT creator_id FROM m')} s ON s.creator_id = m.creator_id
    ORDER BY m.i`,
    [labels.map((x) => x.platform), labels.map((x) => x.handle), labels.length],
  );
  const byIndex = new Map(rows.map((r) => [Number(r.i), r]));
  const matched: Array<Matched<T>> = [];
  const missing: LabelRow[] = [];
  labels.forEach((label, i) => {
    const row = byIndex.get(i);
    if (row) matched.push({ label, creatorId: Number(row.creator_id), row });
    else missing.push(label);
  });
  return { matched, missing };
}

const scopedFeatures = `(SELECT * FROM authenticity_features WHERE creator_id IN ($SCOPE))`;

/** Every matched labelled creator's model inputs (`term_values`, TERMS order): the training matrix. */
export async function selectLabelledTerms(
  db: SqlRunner,
  labels: readonly LabelRow[],
): Promise<{ matched: Array<Matched<{ term_values: number[] }>>; missing: LabelRow[] }> {
  return match(db, labels, `(SELECT creator_id, term_values FROM ${termsSelectSql(withPeerStatsSql(scopedFeatures))})`);
}

/** Every matched labelled creator scored with `model` (score, probability), from the stored features. */
export async function selectLabelledScores(
  db: SqlRunner,
  labels: readonly LabelRow[],
  model: TrainedModel,
): Promise<{
  matched: Array<
    Matched<{ authenticity_score: number; fraud_probability: number; confidence: 'high' | 'medium' | 'low' }>
  >;
  missing: LabelRow[];
}> {
  return match(
    db,
    labels,
    `(SELECT creator_id, authenticity_score, fraud_probability, confidence
    FROM (${scoringSelectSql(withPeerStatsSql(scopedFeatures), model)}))`,
  );
}
