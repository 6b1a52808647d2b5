// Builds the CLI (and with it the service) into JavaScript in dist/, so processes run plain `node`
// instead of compiling TypeScript at start: no loader thread, no per-module transpiling, about 40 MB
// less resident memory per process. Packages stay in node_modules (not bundled).
// The build is split (esbuild's code splitting): dist/cds.mjs holds what every command needs, and what
// only some commands need (the service, the store and DuckDB, the exports…) sits in chunks beside it
// that the command imports when it runs, so `cds --help`, a usage mistake or a command sent to the
// running server does not load, parse and link the whole service (about 1.4 s of CPU per process here).
// The build is redone whenever a source file changed since it was made (bin/cds.mjs checks on every
// start, in about 7 ms here; a build takes about 0.2 s), so a checkout never runs stale code. Where
// dist/ cannot be written (a read-only install), bin/cds.mjs runs the TypeScript through tsx.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** The project root (this file is in bin/). */
export const ROOT = resolve(import.meta.dirname, '..');
/** The folders whose TypeScript the service is made of (the console's browser code is bundled at run time). */
const SOURCE_DIRS = ['cli', 'config', 'connectors', 'data', 'pipelines', 'server'];
/** Builds whose chunks are kept: a process that has just imported an older entry still finds the chunks it names. */
const KEEP_BUILDS = 5;
/** Nor is a chunk written this recently removed (a build finishing alongside this one may have written it). */
const KEEP_RECENT_MS = 60_000;

/**
 * A digest of every source file's path, size and modification time: an added, removed or
 * edited file changes it (also one copied in with an older time, as long as its size or path differs).
 */
function sourceStamp(dirs) {
  const digest = createHash('sha256');
  for (const dir of dirs) {
    for (const name of readdirSync(join(ROOT, dir), { recursive: true }).map(String).sort()) {
      if (!name.endsWith('.ts')) continue;
      const stat = statSync(join(ROOT, dir, name));
      digest.update(`${dir}/${name}:${stat.size}:${stat.mtimeMs}\n`);
    }
  }
  return digest.digest('hex');
}

/**
 * Bundles `entry` (a TypeScript file under the root) into `outfile` and its chunks beside it
 * (`<name>-chunk-<hash>.mjs`) unless the stamp beside it says the sources (the service's folders and
 * `extraDirs`) are unchanged and the files it lists are there. Each file is written to a temporary name
 * and renamed, chunks before the entry that imports them, so processes starting together never import a
 * half-written build; chunks are named by their content, so two builds of the same sources write the same files.
 */
export async function bundle(entry, outfile, extraDirs = []) {
  const stampFile = `${outfile}.stamp`;
  const stamp = `${entry}|${sourceStamp([...SOURCE_DIRS, ...extraDirs])}`;
  const built = readBuilds(stampFile);
  if (built.stamp === stamp && (built.builds[0] ?? [outfile]).every(exists)) return outfile;
  const outdir = dirname(outfile);
  const name = basename(outfile).replace(/\.mjs$/, '');
  mkdirSync(outdir, { recursive: true });
  // esbuild itself only when building: loading it costs a start that finds the build current about 0.2 s of CPU
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: { [name]: join(ROOT, entry) },
    outdir,
    outExtension: { '.js': '.mjs' },
    // in the entry's folder: modules find the project root one folder up from their own URL (config/config.ts)
    chunkNames: `${name}-chunk-[hash]`,
    splitting: true,
    write: false,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  // maps before their code, chunks before the entry: no file ever names one that is not there yet
  const rank = (path) => (path.endsWith('.map') ? 0 : 1) + (resolve(path) === resolve(outfile) ? 2 : 0);
  const files = [...result.outputFiles].sort((a, b) => rank(a.path) - rank(b.path));
  for (const file of files) {
    const temp = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temp, file.contents);
    renameSync(temp, file.path);
  }
  const builds = [files.map((f) => f.path), ...built.builds].slice(0, KEEP_BUILDS);
  writeAtomically(stampFile, JSON.stringify({ stamp, builds }));
  pruneChunks(outdir, name, new Set(builds.flat()));
  return outfile;
}

/** The stamp file: the sources' stamp and the files of the last few builds, newest first. */
function readBuilds(stampFile) {
  try {
    const parsed = JSON.parse(readFileSync(stampFile, 'utf8'));
    if (typeof parsed?.stamp === 'string' && Array.isArray(parsed.builds)) return parsed;
  } catch {
    // none yet, or one an older bin/bundle.mjs wrote (a plain stamp): build
  }
  return { stamp: null, builds: [] };
}

/** Removes this entry's chunks that none of the kept builds names and no build wrote in the last minute. */
function pruneChunks(outdir, name, kept) {
  for (const file of readdirSync(outdir)) {
    if (!file.startsWith(`${name}-chunk-`)) continue;
    const path = join(outdir, file);
    if (kept.has(path) || kept.has(path.replace(/\.map$/, ''))) continue;
    try {
      if (Date.now() - statSync(path).mtimeMs > KEEP_RECENT_MS) rmSync(path, { force: true });
    } catch {
      // removed by another build meanwhile
    }
  }
}

function writeAtomically(path, text) {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, path);
}

function exists(path) {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}
