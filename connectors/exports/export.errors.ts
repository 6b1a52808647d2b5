import { ConflictError, GoneError, LimitExceededError, NotFoundError, ValidationError } from '../../data/errors.js';

/**
 * Export failures as domain errors: each carries its catalogue code and says
 * what to fix; the server's error middleware turns them into problem+json.
 */

/** Unknown or unusable body fields (fields, filters, handles). */
export function invalidExport(field: string, message: string): ValidationError {
  return ValidationError.field(field, message);
}

/** A list, campaign or export that does not exist for this account (another account's is the same 404). */
export function exportNotFound(what: string, id: string): NotFoundError {
  return new NotFoundError(`no ${what} with id ${id}`);
}

/** The export would exceed the plan's row cap; raised before any work is done. */
export function exportLimitExceeded(rows: number, cap: number, plan: string): LimitExceededError {
  return new LimitExceededError(
    `this export would have ${rows} rows; the ${plan} plan allows ${cap} rows per export — narrow the source or upgrade the plan`,
    { name: 'export_rows', value: cap },
  );
}

/** The account already has as many exports queued or running as its plan allows. */
export function exportsInFlightExceeded(cap: number, plan: string): LimitExceededError {
  return new LimitExceededError(
    `you have ${cap} exports queued or running, as many as the ${plan} plan allows; create this one once one of them has finished`,
    { name: 'exports_in_flight', value: cap },
  );
}

/** The account's unexpired export files already fill its plan's storage. */
export function exportStorageExceeded(usedBytes: number, quota: number, plan: string): LimitExceededError {
  return new LimitExceededError(
    `your unexpired export files take ${usedBytes} bytes; the ${plan} plan allows ${quota} — wait for older exports to expire or upgrade the plan`,
    { name: 'export_storage_bytes', value: quota },
  );
}

/**
 * The exports folder's file system is below the free-space floor, so the job is
 * not started (it would fill the disk for every account): it fails, and says so.
 */
export class ExportDiskLowError extends Error {
  override name = 'ExportDiskLowError';
  constructor(
    readonly freeBytes: number,
    readonly minFreeBytes: number,
  ) {
    super('the server is low on disk space, so the export was not started; create it again later');
  }
}

/** The file is not there yet (queued, running) or never will be (failed): 409. */
export function exportNotReady(id: string, status: string): ConflictError {
  const hint =
    status === 'failed'
      ? 'it failed; see its error and create a new export'
      : 'download it once its status is succeeded';
  // `export_status`, not `status`: the problem's own `status` is the HTTP status and would overwrite it
  return new ConflictError(`export ${id} is ${status}; ${hint}`, { extensions: { export_status: status } });
}

/** The file's time to live has passed and it was removed: 410 `gone`. */
export class ExportExpiredError extends GoneError {
  override name = 'ExportExpiredError';
  constructor(readonly exportId: string) {
    super(`export ${exportId} has expired and its file was removed; create a new export`);
  }
}

/**
 * Transient failures (lock contention, interrupted I/O) are worth another try by
 * the worker; anything else (bad SQL, full disk, missing source) fails the job.
 */
export function isTransientExportFailure(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  if (/No space left|ENOSPC|disk is full/i.test(message)) return false;
  return /lock|Conflict on|EAGAIN|EBUSY|ETIMEDOUT|interrupted/i.test(message);
}
