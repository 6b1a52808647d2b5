import type { StateQueryable } from '../state/state-db.js';

/** What the writer records of a snapshot it published. */
export interface SnapshotRecord {
  version: number;
  file: string;
  data_version: string;
  bytes: number;
  publish_ms: number;
  published_by: string;
}

/** A published snapshot as PostgreSQL records it. */
export interface SnapshotRow extends SnapshotRecord, Record<string, unknown> {
  published_at: Date;
}

export function latestSnapshot(db: StateQueryable): Promise<SnapshotRow | undefined> {
  return db.one<SnapshotRow>('SELECT * FROM snapshots ORDER BY version DESC LIMIT 1');
}

export async function recordSnapshot(db: StateQueryable, row: SnapshotRecord): Promise<void> {
  await db.run(
    `INSERT INTO snapshots (version, file, data_version, bytes, publish_ms, published_by)
    VALUES (?, ?, ?, ?, ?, ?)`,
    [row.version, row.file, row.data_version, row.bytes, row.publish_ms, row.published_by],
  );
}

/** A replica says which snapshot it reads now (so the writer keeps that file). */
export async function heartbeatReader(db: StateQueryable, reader: string, version: number): Promise<void> {
  await db.run(
    `INSERT INTO snapshot_readers (reader, version, seen_at) VALUES (?, ?, now()::TIMESTAMP)
    ON CONFLICT (reader) DO UPDATE SET version = excluded.version, seen_at = excluded.seen_at`,
    [reader, version],
  );
}

export async function forgetReader(db: StateQueryable, reader: string): Promise<void> {
  await db.run('DELETE FROM snapshot_readers WHERE reader = ?', [reader]);
}

/**
 * Snapshots no one needs any more: older than the newest `keep`, and read by no
 * replica seen within `staleMs` (a replica that stopped heartbeating is gone).
 */
export function removableSnapshots(
  db: StateQueryable,
  keep: number,
  staleMs: number,
): Promise<Array<{ version: number; file: string }>> {
  return db.all(
    `SELECT s.version, s.file FROM snapshots s
    WHERE s.version < (SELECT min(version) FROM (SELECT version FROM snapshots ORDER BY version DESC LIMIT ?) newest)
      AND NOT EXISTS (SELECT 1 FROM snapshot_readers r WHERE r.version = s.version
                      AND r.seen_at > now()::TIMESTAMP - make_interval(secs => ?::FLOAT8 / 1000))
    ORDER BY s.version`,
    [keep, staleMs],
  );
}

export async function deleteSnapshotRecord(db: StateQueryable, version: number): Promise<void> {
  await db.run('DELETE FROM snapshots WHERE version = ?', [version]);
}
