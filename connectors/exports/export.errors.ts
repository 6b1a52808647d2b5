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
    { name: 'export_rows', value: cap });
}

/** The file is not there yet (queued, running) or never will be (failed): 409. */
export function exportNotReady(id: string, status: string): ConflictError {
  const hint = status === 'failed' ? 'it failed; see its error and create a new export' : 'download it once its status is succeeded';
  return new ConflictError(`export ${id} is ${status}; ${hint}`, { extensions: { status } });
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
