import { constants } from 'node:fs';
import { copyFile, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { dataVersion } from '../creators/creator-search.queries.js';
import { SearchProjection } from '../creators/search-projection.js';
import type { StateDb } from '../state/state-db.js';
import type { Store } from '../store.js';
import type { SnapshotIndexOutcome, SnapshotIndexWriter } from './snapshot-index.js';
import { deleteSnapshotRecord, latestSnapshot, recordSnapshot, removableSnapshots } from './snapshot.queries.js';

/** What one publish did. */
export interface PublishResult {
  version: number;
  file: string;
  bytes: number;
  /** Checkpoint + copy + index files + record, in ms. */
  publishMs: number;
  /** What was done for the search index's files (null: nothing asked, see `PublisherOptions.searchIndex`). */
  index: SnapshotIndexOutcome | null;
}

/** A snapshot copied into place but not yet recorded (replicas do not see it yet). */
export interface CopiedSnapshot {
  version: number;
  file: string;
  dataVersion: string;
  started: number;
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
  /** Writes the search index's files for each snapshot before it is recorded (docs/search.md, "The index as files"). */
  searchIndex?: SnapshotIndexWriter;
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
  const copied = await copyIfChanged(store, state, options);
  return copied ? finishPublish(state, copied, options) : null;
}

/**
 * The first half of a publish, while nothing writes (the caller holds the load
 * lock): the checkpoint and the copy. Answers null when nothing changed.
 */
export async function copyIfChanged(
  store: Store,
  state: StateDb,
  options: PublisherOptions,
): Promise<CopiedSnapshot | null> {
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
  return { version: next, file, dataVersion: version, started };
}

/**
 * The second half, which reads only the copy (loads may go on meanwhile): the
 * search index's files, then the record that makes replicas switch — so a
 * replica finds the index files of the snapshot it switches to.
 */
export async function finishPublish(
  state: StateDb,
  copied: CopiedSnapshot,
  options: PublisherOptions,
): Promise<PublishResult> {
  // without index files the snapshot is still published: its replicas build their index, as before files
  const index = options.searchIndex
    ? await options.searchIndex
        .write(copied.file, copied.dataVersion)
        .catch((error: unknown): SnapshotIndexOutcome => ({ kind: 'failed', ms: 0, error: String(error) }))
    : null;
  const bytes = (await stat(copied.file)).size;
  const publishMs = performance.now() - copied.started;
  await recordSnapshot(state, {
    version: copied.version,
    file: basename(copied.file),
    data_version: copied.dataVersion,
    bytes,
    publish_ms: publishMs,
    published_by: options.by,
  });
  return { version: copied.version, file: copied.file, bytes, publishMs, index };
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
