import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Config } from '../config/config.js';

/**
 * The service's files hold creator data, webhook secrets and keys: only the
 * account the service runs as may read them. Folders are 0700 and files 0600;
 * the CLI also sets the process umask to 0o077 (PRIVATE_UMASK), so that files
 * DuckDB creates on its own later (a new WAL after each checkpoint, COPY output)
 * are born private.
 */
export const PRIVATE_UMASK = 0o077;
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Sets the process umask to PRIVATE_UMASK (a worker thread cannot; its files rely on their 0700 folders). */
export function usePrivateUmask(): void {
  try {
    process.umask(PRIVATE_UMASK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_WORKER_UNSUPPORTED_OPERATION') throw error;
  }
}

/** Creates `path` (and parents) when missing and makes it 0700, also when it already existed looser (`var/` at 0755). */
export function privateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodSync(path, PRIVATE_DIR_MODE);
}

/** Makes a file 0600; a file that is gone (a WAL checkpointed away) is fine. Never follows a symlink. */
export function privateFile(path: string): void {
  try {
    if (lstatSync(path).isFile()) chmodSync(path, PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** Makes a folder 0700 and the regular files directly in it 0600 (sub-folders are left to their owners). */
export function privateFolderFiles(dir: string): void {
  privateDir(dir);
  for (const name of readdirSync(dir)) privateFile(join(dir, name));
}

/**
 * Tightens the data folder at start: the folder 0700, the files in it (`cds.duckdb`,
 * its `.wal`, the key and secret files) 0600, and so `exports/` and `inbox/` with
 * their files. A `var/` made by an older version at 0755/0644 is fixed here.
 */
export function secureDataFolder(config: Pick<Config, 'dataDir' | 'exportsDir' | 'inboxDir'>): void {
  privateFolderFiles(config.dataDir);
  for (const dir of [config.exportsDir, config.inboxDir]) {
    if (existsSync(dir)) privateFolderFiles(dir);
  }
}

/**
 * A random secret kept in a 0600 file: read when the file holds one, else made
 * and written. Two processes starting at once agree: the first to create the file wins.
 */
export function persistedSecret(path: string, make: () => string): string {
  const saved = readSecret(path);
  if (saved !== null) return saved;
  mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE });
  const secret = make();
  try {
    writeFileSync(path, `${secret}\n`, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    chmodSync(path, PRIVATE_FILE_MODE);
    return secret;
  } catch {
    // another process (or app in this process) wrote it first: use theirs
    return readFileSync(path, 'utf8').trim();
  }
}

function readSecret(path: string): string | null {
  if (!existsSync(path)) return null;
  const saved = readFileSync(path, 'utf8').trim();
  return saved.length >= 32 ? saved : null;
}
