import { errorCode, errorMessage, TerminalError, TransientError, WarehouseError } from '../warehouse/errors.js';

/** File-system failures that pass: busy files, too many open files, a network mount hiccup. */
const TRANSIENT_CODES = new Set(['EBUSY', 'EAGAIN', 'EMFILE', 'ENFILE', 'ETIMEDOUT', 'ESTALE', 'EIO']);

const TERMINAL_HINTS: Readonly<Record<string, string>> = {
  ENOSPC: 'the destination disk is full',
  EDQUOT: 'the destination disk quota is used up',
  EACCES: 'no permission to write the destination folder',
  EPERM: 'no permission to write the destination folder',
  EROFS: 'the destination folder is read-only',
  ENOTDIR: 'the destination path is not a folder',
};

/** Classifies a failure of the files destination; a full or read-only disk stops with a reason. */
export function classifyFilesError(error: unknown): WarehouseError {
  if (error instanceof WarehouseError) return error;
  const code = errorCode(error);
  const message = errorMessage(error);
  if (code && TRANSIENT_CODES.has(code)) return new TransientError(`${code}: ${message}`, { cause: error });
  if (code && TERMINAL_HINTS[code]) return new TerminalError(`${TERMINAL_HINTS[code]} (${message})`, { cause: error });
  if (/No space left|disk is full/i.test(message))
    return new TerminalError(`the destination disk is full (${message})`, { cause: error });
  if (/Permission denied|Read-only/i.test(message))
    return new TerminalError(`cannot write the destination folder (${message})`, { cause: error });
  if (/lock|Resource temporarily unavailable/i.test(message)) return new TransientError(message, { cause: error });
  return new TerminalError(message, { cause: error });
}
