import { constants } from 'node:fs';
import { copyFile, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { dataVersion } from '../creators/creator-search.queries.js';
import { SearchProjection } from '../creators/search-projection.js';
import type { StateDb } from '../state/state-db.js';
import type { Store } from '../store.js';
import { deleteSnapshotRecord, latestSnapshot, recordSnapshot, removableSnapshots } from './snapshot.queries.js';

/** What one publish did. */
export interface PublishResult {
  version: number;
  file: string;
  bytes: number;
  /** Checkpoint + copy + record, in ms. */
  publishMs: number;
}

export interface PublisherOptions {
  dir: string;
  /** Who publishes (the writer's instance name). */
  by: string;
  /** Snapshots kept besides those replicas still read. */
  keep?: number;
  /** A replica not seen for this long no longer holds its snapshot. */
  readerStaleMs?: number;
  now?: () => number;
}

/**
 * Publishes the writer's store as an immutable snapshot when its data changed
 * since the last one, its search projection rebuilt first when it is behind. The caller holds the load lock, so nothing writes while
 * the file is checkpointed and copied: after CHECKPOINT the DuckDB file alone is
 * the whole database. The copy is written beside its final name, synced and
 * renamed, and only then recorded in PostgreSQL, so a replica never sees a
 * half-written file. Answers null when nothing changed.
 */
export async function publishIfChanged(
  store: Store,
  state: StateDb,
  options: PublisherOptions,
): Promise<PublishResult | null> {
  const version = await dataVersion(store);
  const latest = await latestSnapshot(state);
  if (latest && latest.data_version === version) return null;
  const started = performance.now();
  // replicas cannot rebuild the sorted search projection in a read-only file: it goes out current
  await new SearchProjection(store).refresh(version);
  await store.run('CHECKPOINT');
  const next = Math.max((options.now ?? Date.now)(), (latest?.version ?? 0) + 1);
  await mkdir(options.dir, { recursive: true });
  const file = join(options.dir, `snapshot-${next}.duckdb`);
  await copyDurably(store.path, file);
  const bytes = (await stat(file)).size;
  const publishMs = performance.now() - started;
  await recordSnapshot(state, {
    version: next,
    file: basename(file),
    data_version: version,
    bytes,
    publish_ms: publishMs,
    published_by: options.by,
  });
  return { version: next, file, bytes, publishMs };
}

/** Copies (a reflink where the file system has them), fsyncs, then renames into place. */
async function copyDurably(from: string, to: string): Promise<void> {
  const partial = `${to}.partial`;
  await copyFile(from, partial, constants.COPYFILE_FICLONE);
  const handle = await open(partial, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(partial, to);
}

/** Removes the files and records of snapshots no replica reads and that are not among the newest. */
export async function pruneSnapshots(state: StateDb, options: PublisherOptions): Promise<number> {
  const removable = await removableSnapshots(state, options.keep ?? 2, options.readerStaleMs ?? 120_000);
  for (const s of removable) {
    await deleteSnapshotRecord(state, s.version);
    await rm(join(options.dir, s.file), { force: true });
  }
  return removable.length;
}
