/**
 * A file that cannot be loaded at all (unreadable, truncated, wrong header or
 * columns). Terminal: retrying the same bytes fails the same way, so an inbox
 * file that throws this is moved aside with its reason.
 */
export class FileUnreadableError extends Error {
  override name = 'FileUnreadableError';
}

/** A pipeline or entity name nobody declared. */
export class UnknownPipelineError extends Error {
  override name = 'UnknownPipelineError';
}

/** A failure of a remote source worth retrying (timeout, 429, 5xx, connection reset). */
export class TransientSourceError extends Error {
  override name = 'TransientSourceError';
}
