import { lstat, mkdir, readdir, rename, writeFile } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { basename, join } from 'node:path';
import type { EntityName } from '../entities/entity.js';
import { ENTITY_NAMES, entityForFile } from '../entities/entity.js';
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
 * read (or keeps failing) moves to `failed/` beside a `.reason.txt`, and so does
 * one whose name matches no entity or format (`INBOX_NAMING_RULE`), once settled,
 * and anything that is not a regular file (a symbolic link is never followed: its
 * target could be any file the service can read).
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
        source: `inbox:${basename(file)}`,
        batches: [{ entity, file, format }],
        dedupeByChecksum: true,
        settle: (outcome, error) => settleFile(ctx, file, unit.source, outcome, error),
      };
      return unit;
    },
  };
}

/**
 * Whether the inbox holds files still to handle: loaded, set aside, or (a name
 * the inbox cannot match) moved to `failed/` once settled.
 */
export async function inboxHasFiles(inboxDir: string): Promise<boolean> {
  const entries = await readdir(inboxDir, { withFileTypes: true }).catch(() => []);
  return entries.some((e) => !e.name.startsWith('.') && !(e.isDirectory() && OWN_FOLDERS.has(e.name)));
}

/** How the inbox tells what a file is; written beside a file set aside for its name, and in docs/data-formats.md. */
export const INBOX_NAMING_RULE =
  `A file is loaded when its name, lower-cased and with '-' read as '_', starts with an entity name ` +
  `(${ENTITY_NAMES.join(', ')}) followed by anything but a letter, and ends in .csv, .ndjson, .jsonl, .json, .parquet or .pq ` +
  `(optionally followed by .gz or .zst): creators-2026-01.csv, Campaign-Metrics.ndjson, posts.parquet. ` +
  'Rename the file and drop it in again, or load it with: cds ingest <file> --entity <name>. See docs/data-formats.md.';

/** The inbox's own folders, where handled files go. */
const OWN_FOLDERS = new Set(['done', 'failed']);

/** Why an inbox entry that is not a regular file is set aside; null for a regular file. */
function notRegular(info: Stats): string | null {
  if (info.isFile()) return null;
  const what = info.isSymbolicLink() ? 'a symbolic link' : info.isDirectory() ? 'a folder' : 'not a regular file';
  return (
    `is ${what}; the inbox loads only regular files and never follows links. Copy the file itself into the inbox, ` +
    'or load it with: cds ingest <file> --entity <name>.'
  );
}

/** Whether the inbox can tell a file's entity and format from its name. */
function matchesNamingRule(name: string): boolean {
  return entityForFile(name) !== null && formatOf(name) !== null;
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
    if (name.startsWith('.') || ctx.seen.has(`inbox:${name}`)) continue;
    const named = matchesNamingRule(name);
    if (named && entityForFile(name) !== entity) continue;
    const path = join(ctx.config.inboxDir, name);
    const info = await lstat(path).catch(() => null);
    if (!info || (info.isDirectory() && OWN_FOLDERS.has(name)) || Date.now() - info.mtimeMs < settleMs) continue;
    const refused = notRegular(info);
    if (refused) await setAside(ctx, path, refused, 'is not a regular file');
    else if (named) candidates.push({ path, mtime: info.mtimeMs });
    else
      await setAside(
        ctx,
        path,
        `the inbox cannot tell what this file is from its name. ${INBOX_NAMING_RULE}`,
        'names no entity or format',
      );
  }
  candidates.sort((a, b) => a.mtime - b.mtime || a.path.localeCompare(b.path));
  return candidates[0]?.path ?? null;
}

/**
 * Moves a settled entry the inbox will not load (a name it cannot match, a link,
 * a folder) to `failed/` with the reason, and logs it once: left where it was, it
 * would sit there unexplained forever. Every entity's pipeline scans the inbox;
 * the one whose move wins logs it, the others find it gone. A link is moved as a
 * link: its target is never opened.
 */
async function setAside(ctx: SourceContext, file: string, reason: string, summary: string): Promise<void> {
  let target: string;
  try {
    target = await moveTo(ctx, file, 'failed');
  } catch {
    return; // another pipeline's scan moved it first, or it went away
  }
  await writeFile(`${target}.reason.txt`, `${new Date().toISOString()} ${basename(file)}: ${reason}\n`);
  ctx.logger?.warn(
    { file: basename(file), moved_to: target },
    `inbox file ${basename(file)} ${summary}: moved to inbox/failed/ (see its .reason.txt)`,
  );
}

async function settleFile(
  ctx: SourceContext,
  file: string,
  source: string,
  outcome: RunStatus,
  error?: Error,
): Promise<void> {
  if (outcome !== 'failed') {
    await moveTo(ctx, file, 'done');
    return;
  }
  const terminal =
    error instanceof FileUnreadableError || (await failedRunsOf(ctx.store, ctx.pipeline, source)) >= INBOX_MAX_ATTEMPTS;
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
