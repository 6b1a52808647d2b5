import type { Store } from '../store.js';
import type { ScoredLabel } from './evaluation.js';
import { PEER_SIGNALS } from './model.js';
import { scoringSelectSql, withPeerStatsSql } from './scoring.queries.js';

/** The demo dataset's ground truth (creator_labels) with each creator's precomputed score. */
export async function selectDemoLabelled(store: Store): Promise<ScoredLabel[]> {
  const rows = await store.all<{ score: number | null; label: string }>(`SELECT c.authenticity_score AS score, l.label
    FROM creator_labels l JOIN creators c USING (creator_id)`);
  return rows.filter((r) => r.score !== null).map((r) => ({ score: Number(r.score), label: r.label, fraud: r.label !== 'authentic' }));
}

export interface LabelledHandle {
  platform: string;
  handle: string;
  label: string;
}

/**
 * Scores of labelled (platform, handle) pairs, matched set-based; answers the
 * matched ones and the pairs with no such creator (or no score yet).
 */
export async function selectLabelledHandles(store: Store, items: readonly LabelledHandle[]): Promise<{ scored: ScoredLabel[]; missing: LabelledHandle[] }> {
  const rows = await store.all<{ i: number; score: number | null }>(`WITH l AS (
      SELECT unnest(?::VARCHAR[]) AS platform, unnest(?::VARCHAR[]) AS handle, unnest(range(0, ?)) AS i)
    SELECT l.i, c.authenticity_score AS score FROM l JOIN creators c ON c.platform = l.platform AND c.handle = l.handle`,
    [items.map((x) => x.platform), items.map((x) => x.handle), items.length]);
  const scores = new Map(rows.filter((r) => r.score !== null).map((r) => [Number(r.i), Number(r.score)]));
  const scored: ScoredLabel[] = [];
  const missing: LabelledHandle[] = [];
  items.forEach((x, i) => {
    const score = scores.get(i);
    if (score === undefined) missing.push(x);
    else scored.push({ score, label: x.label, fraud: x.label !== 'authentic' });
  });
  return { scored, missing };
}

/** Per labelled creator, the points each signal took off (spikes first, then PEER_SIGNALS order). */
export async function selectSignalPenalties(store: Store): Promise<Array<{ label: string; penalties: number[] }>> {
  const columns = ['spike_penalty', ...PEER_SIGNALS.map((_, i) => `penalty_${i}`)];
  const rows = await store.all<{ label: string; penalties: number[] }>(`SELECT l.label, [${columns.join(', ')}] AS penalties
    FROM (${scoringSelectSql(withPeerStatsSql('authenticity_features'))}) s JOIN creator_labels l USING (creator_id)`);
  return rows.map((r) => ({ label: r.label, penalties: r.penalties.map(Number) }));
}

/** Authentic creators whose history has a follower spike (viral jumps), and how many of them score below 80. */
export async function selectSpikedAuthentic(store: Store): Promise<{ n: number; flagged: number }> {
  const row = await store.one<{ n: number; flagged: number }>(`SELECT count(*) AS n,
      count(*) FILTER (WHERE c.authenticity_score < 80) AS flagged
    FROM authenticity_features f JOIN creator_labels l USING (creator_id) JOIN creators c USING (creator_id)
    WHERE l.label = 'authentic' AND f.spikes_n > 0`);
  return { n: Number(row?.n ?? 0), flagged: Number(row?.flagged ?? 0) };
}
