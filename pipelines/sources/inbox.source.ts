import { mkdir, readdir, rename, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { EntityName } from '../entities/entity.js';
import { entityForFile } from '../entities/entity.js';
import { FileUnreadableError } from '../engine/errors.js';
import type { PipelineSource, RunStatus, SourceContext, WorkUnit } from '../engine/pipeline.js';
import { failedRunsOf } from '../engine/run.queries.js';
import { formatOf } from '../engine/stage.js';

/** How long a file must sit unchanged before it is picked up (half-copied files wait). */
export const INBOX_SETTLE_MS = 2_000;

/** Runs that may fail on one inbox file (a transient cause) before it is set aside. */
export const INBOX_MAX_ATTEMPTS = 3;

export interface InboxOptions {
  /** A file must be this old (ms since its last write) before it is picked up, so half-copied files wait. */
  settleMs?: number;
}

/**
 * The watched inbox folder (`config.inboxDir`): files named after an entity
 * (`creators*.csv`, `posts-2026.parquet`) are loaded by that entity's pipeline,
 * oldest first, one run each. A loaded file moves to `done/`; one that cannot be
 * read (or keeps failing) moves to `failed/` beside a `.reason.txt`.
 */
export function inboxSource(entity: EntityName, options: InboxOptions = {}): PipelineSource {
  return {
    kind: 'inbox',
    next: async (ctx) => {
      const file = await nextFile(ctx, entity, options.settleMs ?? INBOX_SETTLE_MS);
      if (!file) return null;
      const format = formatOf(file);
      if (!format) return null;
      const unit: WorkUnit = {
        source: `inbox:${basename(file)}`, batches: [{ entity, file, format }], dedupeByChecksum: true,
        settle: (outcome, error) => settleFile(ctx, file, unit.source, outcome, error),
      };
      return unit;
    },
  };
}

/** Whether the inbox holds files named after any entity (loaded or not yet settled). */
export async function inboxHasFiles(inboxDir: string): Promise<boolean> {
  const names = await readdir(inboxDir).catch(() => [] as string[]);
  return names.some((n) => !n.startsWith('.') && entityForFile(n) !== null && formatOf(n) !== null);
}

async function nextFile(ctx: SourceContext, entity: EntityName, settleMs: number): Promise<string | null> {
  let names: string[];
  try {
    names = await readdir(ctx.config.inboxDir);
  } catch {
    return null; // no inbox yet
  }
  const candidates: Array<{ path: string; mtime: number }> = [];
  for (const name of names) {
    if (name.startsWith('.') || entityForFile(name) !== entity || !formatOf(name) || ctx.seen.has(`inbox:${name}`)) continue;
    const path = join(ctx.config.inboxDir, name);
    const info = await stat(path).catch(() => null);
    if (info?.isFile() && Date.now() - info.mtimeMs >= settleMs) candidates.push({ path, mtime: info.mtimeMs });
  }
  candidates.sort((a, b) => a.mtime - b.mtime || a.path.localeCompare(b.path));
  return candidates[0]?.path ?? null;
}

async function settleFile(ctx: SourceContext, file: string, source: string, outcome: RunStatus, error?: Error): Promise<void> {
  if (outcome !== 'failed') {
    await moveTo(ctx, file, 'done');
    return;
  }
  const terminal = error instanceof FileUnreadableError || (await failedRunsOf(ctx.store, ctx.pipeline, source)) >= INBOX_MAX_ATTEMPTS;
  if (!terminal) return; // a transient failure: the next run retries it from the old cursor
  const target = await moveTo(ctx, file, 'failed');
  await writeFile(`${target}.reason.txt`, `${new Date().toISOString()} ${error?.message ?? 'failed'}\n`);
}

async function moveTo(ctx: SourceContext, file: string, folder: 'done' | 'failed'): Promise<string> {
  const dir = join(ctx.config.inboxDir, folder);
  await mkdir(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const target = join(dir, `${stamp}-${basename(file)}`);
  await rename(file, target);
  return target;
}
