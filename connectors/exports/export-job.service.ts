import { open, type FileHandle } from 'node:fs/promises';
import type { Config } from '../../config/config.js';
import type { PlanLimits } from '../../data/plans/plans.js';
import { normaliseHandle } from '../../data/creators/creator-profile.service.js';
import type { CreatorSearchService } from '../../data/creators/creator-search.service.js';
import { UnavailableError, ValidationError } from '../../data/errors.js';
import { newId } from '../../data/ids.js';
import { plainDecimal } from '../../data/number-text.js';
import { takePage, type KeyedPage } from '../../data/paging.js';
import type { StateDb, StateQueryable } from '../../data/state/state-db.js';
import { wrap, type Store } from '../../data/store.js';
import {
  FORMAT_FILES,
  type ExportFormat,
  type ExportRequest,
  type ExportSource,
  type HandleRef,
} from './export.config.js';
import {
  ExportExpiredError,
  exportLimitExceeded,
  exportNotFound,
  exportNotReady,
  exportStorageExceeded,
  exportsInFlightExceeded,
  invalidExport,
} from './export.errors.js';
import { insertMatches, parseLookalikeFilters, rankLookalikeMatches, type StoredMatch } from './export-lookalikes.js';
import { resolveFields } from './export-fields.js';
import { exportFileName, exportFilePath, isExportId } from './export-files.js';
import { effectiveStatus, toExportJob, type ExportJob } from './export-job.js';
import * as q from './export-job.queries.js';
import { exportCountSql, sourceContext, withSourceConnection } from './export-source.js';
import { parseSearchFilters } from './export-filters.js';

/** Who asks: the account and its plan (from the authenticated key). */
export interface ExportCaller {
  accountId: string;
  plan: string;
}

/** Where plan limits come from: the app's `PlanCatalogue` (data/plans), the one cached reader of the `plans` table. */
export interface PlanLimitsSource {
  limits(plan: string): Promise<Readonly<PlanLimits>>;
}

/**
 * Creates a queued export job. Everything that can be refused is refused here,
 * before any work: unknown fields or filters (400), a list or campaign not in the
 * account (404), more rows than the plan allows (403 limit_exceeded). The rows
 * are counted in the analytical `store`; the job is recorded in the `state`.
 */
export async function createExport(
  store: Store,
  state: StateDb,
  plans: PlanLimitsSource,
  caller: ExportCaller,
  request: ExportRequest,
  options: CreateExportOptions = {},
): Promise<ExportJob> {
  const now = options.now ?? new Date();
  const source = normaliseSource(request);
  const fields = request.fields ?? null;
  resolveFields(source.type, fields ?? undefined);
  await assertSourceOwned(store, state, caller.accountId, source);
  const matches =
    source.type === 'lookalikes' ? await lookalikeMatches(store, state, caller, source, options, now) : null;
  const rows = matches ? matches.length : await countRows(store, state, caller.accountId, source, now);
  const limits = await plans.limits(caller.plan);
  const cap = limits.exportRows;
  if (rows > cap) throw exportLimitExceeded(rows, cap, caller.plan);
  const exportId = newId('exp', now.getTime());
  // the checks and the insert are one step per account (an advisory lock on PostgreSQL), so a burst of creates cannot all pass
  await state.transaction(
    async (tx) => {
      await assertAccountCapacity(tx, limits, caller, now);
      await q.insertExport(tx, {
        export_id: exportId,
        account_id: caller.accountId,
        source: JSON.stringify(source),
        format: request.format,
        fields,
        row_count: rows,
        created_at: now,
      });
      if (matches) await insertMatches(tx, exportId, matches);
    },
    { serialiseOn: `exports:${caller.accountId}` },
  );
  return getExport(state, caller.accountId, exportId, now);
}

/** What a create may be given besides the request. */
export interface CreateExportOptions {
  now?: Date;
  /**
   * The search service whose index ranks a `lookalikes` export's matches (the API's own,
   * so no second index is built); without it such an export is refused as unavailable.
   */
  lookalikes?: CreatorSearchService;
}

/** The rows a source other than lookalikes would export, counted in the store. */
async function countRows(
  store: Store,
  state: StateDb,
  accountId: string,
  source: ExportSource,
  now: Date,
): Promise<number> {
  const count = exportCountSql(source, accountId, await sourceContext(state, source, accountId, now.getTime()));
  return withSourceConnection(
    store,
    state,
    source,
    accountId,
    async (c) => (await wrap(c).one<{ n: number }>(count.sql, count.params))?.n ?? 0,
  );
}

async function lookalikeMatches(
  store: Store,
  state: StateDb,
  caller: ExportCaller,
  source: Extract<ExportSource, { type: 'lookalikes' }>,
  options: CreateExportOptions,
  now: Date,
): Promise<StoredMatch[]> {
  if (!options.lookalikes)
    throw new UnavailableError('lookalike exports are made through the API, which holds the search index');
  return rankLookalikeMatches(store, state, options.lookalikes, source, caller.accountId, now.getTime());
}

/**
 * Refuses a new job (403 limit_exceeded) while the account has its plan's number
 * of exports queued or running, or its unexpired files fill its storage quota:
 * one account must not fill the disk or the queue for everyone.
 */
async function assertAccountCapacity(
  tx: StateQueryable,
  limits: Readonly<PlanLimits>,
  caller: ExportCaller,
  now: Date,
): Promise<void> {
  const usage = await q.accountExportUsage(tx, caller.accountId, now);
  if (usage.in_flight >= limits.exportsInFlight) throw exportsInFlightExceeded(limits.exportsInFlight, caller.plan);
  if (usage.stored_bytes >= limits.exportStorageBytes)
    throw exportStorageExceeded(usage.stored_bytes, limits.exportStorageBytes, caller.plan);
}

/** One of the account's exports; another account's id is the same 404 as a missing one. */
export async function getExport(
  state: StateDb,
  accountId: string,
  exportId: string,
  now = new Date(),
): Promise<ExportJob> {
  const row = isExportId(exportId) ? await q.findExport(state, accountId, exportId) : undefined;
  if (!row) throw exportNotFound('export', exportId.slice(0, 64));
  return toExportJob(row, now);
}

/** A page of the account's exports, newest first; `after` is the last id of the previous page. */
export async function listExports(
  state: StateDb,
  accountId: string,
  page: { limit: number; after: string | null },
  now = new Date(),
): Promise<KeyedPage<ExportJob, [string]>> {
  const rows = await q.listExports(state, accountId, page.limit + 1, page.after);
  return takePage(
    rows,
    page.limit,
    (r) => [r.export_id],
    (r) => toExportJob(r, now),
  );
}

/** What the download route needs to stream a finished file: an open handle (the clean-up may unlink the name meanwhile). */
export interface ExportDownload {
  file: FileHandle;
  bytes: number;
  sha256: string;
  contentType: string;
  fileName: string;
}

/**
 * The file of a succeeded export: 404 for an unknown id, 409 while queued,
 * running or failed, 410 once expired. The path is derived from the id only.
 * It reads the job (state) and the file in `exportsDir` (a shared folder in
 * cluster mode), so any API process serves any worker's export.
 */
export async function openExportDownload(
  state: StateDb,
  config: Pick<Config, 'exportsDir'>,
  accountId: string,
  exportId: string,
  now = new Date(),
): Promise<ExportDownload> {
  const row = isExportId(exportId) ? await q.findExport(state, accountId, exportId) : undefined;
  if (!row) throw exportNotFound('export', exportId.slice(0, 64));
  const status = effectiveStatus(row, now);
  if (status === 'expired') throw new ExportExpiredError(exportId);
  if (status !== 'succeeded' || !row.sha256) throw exportNotReady(exportId, status);
  const format = row.format as ExportFormat;
  const file = await openIfPresent(exportFilePath(config.exportsDir, exportId, format));
  if (!file) throw new ExportExpiredError(exportId);
  const bytes = (await file.stat()).size;
  return {
    file,
    bytes,
    sha256: row.sha256,
    contentType: FORMAT_FILES[format].contentType,
    fileName: exportFileName(exportId, format),
  };
}

async function openIfPresent(path: string): Promise<FileHandle | null> {
  try {
    return await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** The stored source: filters stringified as query parameters, handles as `@lower`. */
function normaliseSource(request: ExportRequest): ExportSource {
  switch (request.source) {
    case 'search': {
      const filters = filterTexts(request.filters);
      parseSearchFilters(filters);
      return { type: 'search', filters };
    }
    case 'list':
      return { type: 'list', list_id: request.list_id };
    case 'creators':
      return { type: 'creators', handles: dedupeHandles(toHandleRefs(request.handles)) };
    case 'campaign':
      return { type: 'campaign', campaign_id: request.campaign_id };
    case 'lookalikes':
      return normaliseLookalikes(request);
  }
}

/** A lookalikes source: the handle as `@lower` (a malformed one is a 400 naming `handle`), filters as query text. */
function normaliseLookalikes(request: Extract<ExportRequest, { source: 'lookalikes' }>): ExportSource {
  const handle = normaliseHandle(safeDecode(request.handle));
  if (handle === null) throw invalidExport('handle', 'not a handle like @name (letters, digits, . _ -)');
  const filters = filterTexts(request.filters);
  parseLookalikeFilters(filters);
  return {
    type: 'lookalikes',
    handle,
    platform: request.platform ?? null,
    basis: request.basis,
    filters,
    limit: request.limit,
  };
}

/** Filters as a search URL carries them: lists joined with commas. */
function filterTexts(raw: Record<string, string | number | boolean | Array<string | number>>): Record<string, string> {
  const filters: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) filters[k] = Array.isArray(v) ? v.map(filterText).join(',') : filterText(v);
  return filters;
}

/** A filter value as the search URL would carry it; JSON numbers in plain decimal, never exponent form. */
function filterText(v: string | number | boolean): string {
  return typeof v === 'number' ? plainDecimal(v) : String(v);
}

/** Handles as the API takes them (`@name`, `%40name` or `name`, any case); a malformed one is a 400 naming it. */
function toHandleRefs(handles: ReadonlyArray<string | { handle: string; platform?: string | undefined }>): HandleRef[] {
  const refs: HandleRef[] = [];
  const bad: number[] = [];
  handles.forEach((h, i) => {
    const raw = typeof h === 'string' ? h : h.handle;
    const handle = normaliseHandle(safeDecode(raw));
    if (handle === null) bad.push(i);
    else refs.push({ handle, platform: typeof h === 'string' ? null : (h.platform ?? null) });
  });
  if (bad.length > 0) {
    throw new ValidationError(
      `malformed handle(s) at ${bad
        .slice(0, 10)
        .map((i) => `handles[${i}]`)
        .join(', ')}: use @name (letters, digits, . _ -)`,
      bad.slice(0, 10).map((i) => ({ field: `handles[${i}]`, message: 'not a handle like @name' })),
      'body',
    );
  }
  return refs;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function dedupeHandles(refs: HandleRef[]): HandleRef[] {
  const seen = new Set<string>();
  return refs.filter((r) => {
    const key = `${r.platform ?? '*'}|${r.handle}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

async function assertSourceOwned(store: Store, state: StateDb, accountId: string, source: ExportSource): Promise<void> {
  if (source.type === 'list' && !(await q.listOwned(state, accountId, source.list_id)))
    throw exportNotFound('list', source.list_id);
  if (source.type === 'campaign' && !(await q.campaignOwned(store, accountId, source.campaign_id))) {
    throw exportNotFound('campaign', source.campaign_id);
  }
}
