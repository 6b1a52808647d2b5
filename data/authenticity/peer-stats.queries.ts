import type { Queryable } from '../store.js';
import { MIN_PEERS, PEER_SIGNALS, type PeerSignal } from './model.js';

/** The key of a creator's own peer group for a signal, over a features row aliased `alias`. */
export function peerKeySql(signal: PeerSignal, alias: string): string {
  switch (signal.peers) {
    case 'size':
      return `${alias}.platform || '|' || ${alias}.size_band`;
    case 'platform':
      return `${alias}.platform`;
    case 'country':
      return `${alias}.country`;
    case 'country_language':
      return `${alias}.country || '|' || ${alias}.language`;
  }
}

/** The same key as `peerKeySql`, from one features row in JS (null when a part is missing, as in SQL). */
export function peerKeyOf(signal: PeerSignal, row: Readonly<Record<string, unknown>>): string | null {
  const key = (...names: string[]): string | null =>
    names.some((n) => row[n] === null || row[n] === undefined) ? null : names.map((n) => String(row[n])).join('|');
  switch (signal.peers) {
    case 'size':
      return key('platform', 'size_band');
    case 'platform':
      return key('platform');
    case 'country':
      return key('country');
    case 'country_language':
      return key('country', 'language');
  }
}

/** Wider groups to fall back to, narrowest first, when the own group has fewer than MIN_PEERS members. */
function fallbackKeysSql(signal: PeerSignal, alias: string): string[] {
  switch (signal.peers) {
    case 'size':
      return [`${alias}.platform`, `'*'`];
    case 'platform':
      return [`'*'`];
    // audiences differ too much between countries for a global median to mean anything
    case 'country':
    case 'country_language':
      return [];
  }
}

/** The value compared for a signal: the metric, on a log scale for rates and ratios. */
export function metricValueSql(signal: PeerSignal, alias: string): string {
  const column = `${alias}.${signal.metric}`;
  return signal.log ? `ln(greatest(${column}, 1e-6))` : column;
}

/**
 * Rebuilds authenticity_peer_stats from every creator's features in one pass:
 * for each signal and each creator's own peer group, the median and the MAD of
 * the metric over that group — or over the narrowest wider group with at least
 * MIN_PEERS members (`basis` says which). Robust statistics, so the frauds in a
 * group barely move its centre.
 */
export async function refreshPeerStats(db: Queryable): Promise<void> {
  const levels = PEER_SIGNALS.flatMap((s) =>
    [peerKeySql(s, 'f'), ...fallbackKeysSql(s, 'f')].map(
      (key) =>
        `SELECT '${s.metric}' AS metric, ${key} AS peer_key, ${metricValueSql(s, 'f')} AS x
     FROM authenticity_features f WHERE ${s.metric} IS NOT NULL AND ${key} IS NOT NULL`,
    ),
  );
  const own = PEER_SIGNALS.map((s) => {
    const keys = [peerKeySql(s, 'f'), ...fallbackKeysSql(s, 'f')];
    return `SELECT DISTINCT '${s.metric}' AS metric, ${keys[0]} AS peer_key,
      [${keys.join(', ')}] AS candidates FROM authenticity_features f WHERE ${keys[0]} IS NOT NULL`;
  });
  await db.run('DELETE FROM authenticity_peer_stats');
  await db.run(`INSERT INTO authenticity_peer_stats (metric, peer_key, n, median, mad, basis, computed_at)
    WITH v AS MATERIALIZED (${levels.join(' UNION ALL ')}),
    m AS (SELECT metric, peer_key, count(*) AS n, median(x) AS med FROM v GROUP BY metric, peer_key),
    g AS (SELECT v.metric, v.peer_key, m.n, m.med, median(abs(v.x - m.med)) AS mad
          FROM v JOIN m ON m.metric = v.metric AND m.peer_key = v.peer_key GROUP BY ALL),
    own AS (${own.join(' UNION ALL ')}),
    chosen AS (
      SELECT own.metric, own.peer_key, g.n, g.med, g.mad, g.peer_key AS basis,
        row_number() OVER (PARTITION BY own.metric, own.peer_key ORDER BY list_position(own.candidates, g.peer_key)) AS rk
      FROM own JOIN g ON g.metric = own.metric AND list_contains(own.candidates, g.peer_key) AND g.n >= ${MIN_PEERS}
    )
    SELECT metric, peer_key, n, med, mad, basis, current_timestamp FROM chosen WHERE rk = 1`);
}
