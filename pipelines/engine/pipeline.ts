import type { Config } from '../../config/config.js';
import type { Store } from '../../data/store.js';
import type { EntityName, WriteDisposition } from '../entities/entity.js';
import type { FileFormat } from './stage.js';

/** What a pipeline runs against. */
export interface PipelineDeps {
  store: Store;
  config: Readonly<Config>;
  logger?: { info: (obj: object, msg?: string) => void; warn: (obj: object, msg?: string) => void };
  /** The clock loads read (derivation time, the posts the store keeps); default the system's. Tests inject one. */
  now?: () => Date;
}

/** Progress of a long load, in rows (what the CLI shows on a TTY). */
export interface LoadProgress {
  step: string;
  done: number;
  total: number | null;
  unit?: string;
}

/** One file of one entity, loaded in a run. */
export interface Batch {
  entity: EntityName;
  file: string;
  format: FileFormat;
  /**
   * What quarantined rows name as their file when `file` is a local staging copy
   * (a configured source's pull): the source and where the rows came from.
   */
  label?: string;
}

/**
 * One unit of work a source hands the runner: its batches load in one
 * transaction together with the cursor advance and the run record.
 */
export interface WorkUnit {
  /** Recorded as the run's source, e.g. `inbox:creators-2026.csv`. */
  source: string;
  batches: Batch[];
  /** Skip the unit when every file's checksum was loaded before by this pipeline. */
  dedupeByChecksum: boolean;
  /** The cursor value to store when the unit commits (`undefined` leaves it). */
  cursor?: string | null;
  /**
   * Set when the source found nothing new (a remote file answered 304, an API had no record past the
   * watermark): recorded as a `skipped` run with this note, nothing loaded, the cursor left as it is.
   */
  unchanged?: string;
  /** Told how the unit ended (the inbox moves its file aside; temp files are removed). */
  settle?: (outcome: RunStatus, error?: Error) => Promise<void>;
}

export interface SourceContext extends PipelineDeps {
  pipeline: string;
  /** The pipeline's committed cursor. */
  cursor: string | null;
  /** Sources already handed out in this invocation, so a failing one is not retried in a loop. */
  seen: Set<string>;
}

/** Where a pipeline's data comes from; `next` answers null when there is nothing (more) to load. */
export interface PipelineSource {
  kind: 'inbox' | 'files' | 'http' | 'remote_file' | 'demo';
  next(ctx: SourceContext): Promise<WorkUnit | null>;
}

/** A declared pipeline (house style 7): a definition; its runs are records. */
export interface PipelineDefinition {
  name: string;
  description: string;
  /** The entity it loads; null for a source that feeds several (the demo). */
  entity: EntityName | null;
  disposition: WriteDisposition;
  /** The natural key rows merge on. */
  key: readonly string[];
  /** What its cursor holds: loaded-file checksums, a remote watermark, remote files' ETag/Last-Modified, or the demo's last tick. */
  cursor: 'file-checksum' | 'watermark' | 'etag' | 'tick';
  /** node-cron expression, evaluated in UTC; null runs only on demand. */
  schedule: string | null;
  source(deps: PipelineDeps): PipelineSource;
}

/**
 * Every state a run can be in, for validators (`cds runs --status`, `GET /v1/runs`).
 * `running` is recorded, in its own commit, when a load starts; a process that dies
 * leaves it for the next run to mark failed.
 */
export const RUN_STATUSES = ['running', 'succeeded', 'failed', 'skipped'] as const;

export type RunStatus = (typeof RUN_STATUSES)[number];

/** A run's record, as stored in `pipeline_runs` and answered by `cds runs` and `GET /v1/runs`. */
export interface RunRecord {
  run_id: string;
  pipeline: string;
  source: string | null;
  status: RunStatus;
  started_at: string;
  finished_at: string | null;
  rows_read: number;
  rows_loaded: number;
  rows_rejected: number;
  rows_changed: number;
  /** Valid rows ignored because the stored row is newer (its `updated_at` / `as_of` is later). */
  rows_stale: number;
  events_emitted: number;
  error: string | null;
  /** What the run loaded despite, e.g. a file column the entity does not have (read past); empty when nothing. */
  warnings: string[];
}

/** What one `runPipeline` call did: its runs, or why it did not run. */
export interface PipelineOutcome {
  pipeline: string;
  /** Set when another run of the same pipeline was still going (no overlap). */
  skipped?: 'already running';
  runs: RunRecord[];
}
