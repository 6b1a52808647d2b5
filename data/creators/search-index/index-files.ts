import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { decodeDelta, type DeltaBase, type DeltaHeader, deltaHeader, encodeDelta } from './delta-files.js';
import { prepareShareKernel } from './discovery-filters.js';
import { readVerified, verifySections } from './index-file-reader.js';
import { mapSections, mapsIndexFiles } from './mapped-file.js';
import { decodePartSteps, encodePart, type SectionList, type Skeleton } from './index-files.codec.js';
import { adoptPreparedParts, adoptPreparedPartsLater, preparedPartsOf } from './prepared-parts.js';
import type { SearchDelta } from './search-delta.js';
import { SearchIndex } from './search-index.js';
import { runSliced } from './sliced-work.js';

/**
 * The search index as immutable files (docs/search.md, "The index as files"):
 * per data version one data file of 8-byte-aligned sections (typed arrays,
 * bit arrays, packed strings) and a manifest naming the data version, the
 * format, each section's offset, length and CRC-32, and the JSON skeleton that
 * ties the sections together. A reader reads the data file into one
 * ArrayBuffer and makes views over it: no per-creator parsing.
 */
export const FORMAT = 'cds-search-index';
/**
 * 2: term postings delta-coded (term-postings.ts); 3: audience shares 16-bit where they are hundredths
 * (share-column.ts); 4: the text's postings and trigram token lists delta-coded (text-index.ts); 5: the handle
 * table and the lookalike vectors (prepared-parts.ts), which readers had built after each open; 6: the caption
 * words' broad prefixes as bit arrays (`TermRuns`, term-postings.ts); 7: range suffix sets start where runs of
 * equal values start (`RangeSuffixes.starts`, search-index.ts).
 */
export const FORMAT_VERSION = 7;
/** A reader's work per turn of the event loop while it decodes and prepares an opened index beside requests. */
const OPEN_SLICE_MS = 10;

/** Sections start at multiples of this (the widest element, a double). */
const ALIGN = 8;
/** Reads, writes and checksums go by this much at a time, yielding between (a large file never blocks the loop long). */
const CHUNK = 64 * 1024 * 1024;

export interface IndexManifest {
  format: string;
  format_version: number;
  data_version: string;
  creators: number;
  file: string;
  bytes: number;
  written_at: string;
  /** Per section: [byte offset, byte length, CRC-32]. */
  sections: Array<[number, number, number]>;
  /**
   * Per section, the first 128 bits of its SHA-256 (hex): what a reader compares to take a section unchanged
   * from the index it holds instead of reading it (a CRC-32 match alone could be another section's bytes).
   */
  digests?: string[];
  skeleton: Skeleton;
  skeleton_crc32: number;
}

/**
 * What an open found: the index, or why there is none (`refused` null: no files for any version). `manifest` is
 * the base files'; `delta` the header of the delta segment applied over them (docs/search.md, "Delta segments").
 */
export type OpenedIndex =
  | {
      index: SearchIndex;
      manifest: IndexManifest;
      ms: number;
      delta?: DeltaHeader;
      steps?: OpenSteps;
      /**
       * A mapped open's check of the sections it left for after the open (the lookalike vectors, which no search
       * reads): null when they passed, else why they were refused (the vectors are then built from the data).
       */
      checked?: Promise<string | null>;
    }
  | { index: null; refused: string | null };

/** Where an open of a data file spent its time (ms): the worker's read and checksums, then the decode and set-up here. */
export interface OpenSteps {
  read: number;
  decode: number;
  prepare: number;
  /** Bytes taken from the index opened before instead of read (unchanged sections). */
  reused: number;
}

/** Delta segments kept besides the newest (a replica a snapshot or two behind still finds its own). */
const KEEP_DELTAS = 3;

/** The folder of a store's index files: `search-index/` beside the DuckDB file (the store's folder, or the snapshots'). */
export function indexDirOf(storePath: string): string | null {
  return storePath === ':memory:' ? null : join(dirname(storePath), 'search-index');
}

/** Whether `dir` holds a manifest of any version (a cheap look, at start). */
export function hasIndexFiles(dir: string | null): boolean {
  if (!dir) return false;
  try {
    return readdirSync(dir).some((n) => n.startsWith('search-') && n.endsWith('.json'));
  } catch {
    return false;
  }
}

/** The file name stem of a data version's files. */
export function stemOf(dataVersion: string): string {
  return `search-${hexOf(dataVersion)}`;
}

/** The file name of a data version's delta segment (not `search-…`: never taken for a manifest). */
export function deltaNameOf(dataVersion: string): string {
  return `delta-${hexOf(dataVersion)}.json`;
}

function hexOf(dataVersion: string): string {
  return createHash('sha256').update(dataVersion).digest('hex').slice(0, 20);
}

/** What a delta segment names of its base files. */
function deltaBaseOf(manifest: IndexManifest): DeltaBase {
  return {
    data_version: manifest.data_version,
    creators: manifest.creators,
    bytes: manifest.bytes,
    skeleton_crc32: manifest.skeleton_crc32,
  };
}

/**
 * Writes the delta segment of `delta.version` over the base files `base` into `dir` (written as `….partial`,
 * synced and renamed); deltas whose base files are gone go, and all but the newest few others.
 */
export async function writeDeltaFile(dir: string, delta: SearchDelta, base: IndexManifest): Promise<number> {
  const name = deltaNameOf(delta.version);
  const bytes = encodeDelta(delta, deltaBaseOf(base));
  const handle = await open(join(dir, `${name}.partial`), 'w', 0o600);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(join(dir, `${name}.partial`), join(dir, name));
  await pruneDeltas(dir, KEEP_DELTAS, name);
  return bytes.byteLength;
}

/** Removes the deltas whose base files are gone, and all but the newest `keep` besides `current`. */
async function pruneDeltas(dir: string, keep: number, current: string | null): Promise<void> {
  const deltas: Array<{ name: string; at: string }> = [];
  for (const name of await listDir(dir)) {
    if (!name.startsWith('delta-') || !name.endsWith('.json') || name === current) continue;
    const header = await readFile(join(dir, name)).then(deltaHeader, () => 'unreadable');
    if (typeof header === 'string' || !(await exists(join(dir, `${stemOf(header.base.data_version)}.json`)))) {
      await rm(join(dir, name), { force: true });
      continue;
    }
    deltas.push({ name, at: header.written_at });
  }
  deltas.sort((a, b) => (a.at < b.at ? 1 : -1));
  for (const { name } of deltas.slice(keep)) await rm(join(dir, name), { force: true });
}

/**
 * Writes the index's files into `dir`: the data file, synced and renamed into
 * place, then the manifest the same way (a reader never sees a manifest whose
 * data file is incomplete). Other versions' files go, but the newest `keepOthers`.
 */
export async function writeIndexFiles(
  dir: string,
  index: SearchIndex,
  options: { keepOthers?: number } = {},
): Promise<IndexManifest> {
  const prepared = await preparedPartsOf(index.lookalikeView().data);
  const writer = await IndexFileWriter.create(dir, index.version);
  try {
    const skeleton = writer.add({ ...index.fileParts(), prepared });
    await writer.flush();
    return await writer.finish(skeleton, index.size, options);
  } finally {
    await writer.abandon();
  }
}

/**
 * The data file of one version written as its sections come: `add` encodes a
 * part (its sections queued, each at its 8-byte-aligned offset), `flush` writes
 * and checksums the queued sections and lets them go, `finish` syncs the file,
 * renames it into place and writes the manifest. A build that writes its index
 * part by part (`writeSearchIndexFiles`) holds one part at a time, not the
 * whole index.
 */
export class IndexFileWriter implements SectionList {
  private at = 0;
  private readonly table: IndexManifest['sections'] = [];
  private readonly digests: string[] = [];
  private pending: Array<[number, Uint8Array]> = [];
  private done = false;

  private constructor(
    private readonly dir: string,
    private readonly dataVersion: string,
    private readonly handle: FileHandle,
  ) {}

  static async create(dir: string, dataVersion: string): Promise<IndexFileWriter> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const handle = await open(join(dir, `${stemOf(dataVersion)}.bin.partial`), 'w', 0o600);
    return new IndexFileWriter(dir, dataVersion, handle);
  }

  get length(): number {
    return this.table.length;
  }

  /** Queues a section at the next aligned offset (its checksum is taken when it is written); answers its number. */
  push(section: Uint8Array): number {
    this.at = Math.ceil(this.at / ALIGN) * ALIGN;
    this.table.push([this.at, section.byteLength, 0]);
    this.pending.push([this.table.length - 1, section]);
    this.at += section.byteLength;
    return this.table.length - 1;
  }

  /** Encodes `part` (its sections queued): its skeleton. */
  add(part: unknown): Skeleton {
    return encodePart(part, this);
  }

  /** Writes the queued sections, and holds them no longer. */
  async flush(): Promise<void> {
    const pending = this.pending;
    this.pending = [];
    for (const [i, s] of pending) {
      const entry = this.table[i]!;
      entry[2] = await checksum(s);
      this.digests[i] = await digest(s);
      for (let o = 0; o < s.byteLength; o += CHUNK)
        await this.handle.write(s, o, Math.min(CHUNK, s.byteLength - o), entry[0] + o);
    }
  }

  /** Completes the files: the data file synced and renamed, then its manifest (`skeleton`: the whole index's). */
  async finish(skeleton: Skeleton, creators: number, options: { keepOthers?: number } = {}): Promise<IndexManifest> {
    await this.flush();
    const stem = stemOf(this.dataVersion);
    const file = `${stem}.bin`;
    await this.handle.truncate(this.at);
    await this.handle.sync();
    await this.handle.close();
    this.done = true;
    await rename(join(this.dir, `${file}.partial`), join(this.dir, file));
    const manifest: IndexManifest = {
      format: FORMAT,
      format_version: FORMAT_VERSION,
      data_version: this.dataVersion,
      creators,
      file,
      bytes: this.at,
      written_at: new Date().toISOString(),
      sections: this.table,
      digests: this.digests,
      skeleton,
      skeleton_crc32: crc32(JSON.stringify(skeleton)),
    };
    await writeFile(join(this.dir, `${stem}.json.partial`), JSON.stringify(manifest), { mode: 0o600 });
    await rename(join(this.dir, `${stem}.json.partial`), join(this.dir, `${stem}.json`));
    await pruneIndexFiles(this.dir, options.keepOthers ?? 0, stem);
    return manifest;
  }

  /** Closes and removes an unfinished file (after a failure; nothing once finished). */
  async abandon(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.handle.close().catch(() => undefined);
    await rm(join(this.dir, `${stemOf(this.dataVersion)}.bin.partial`), { force: true });
  }
}

/**
 * Opens the files of `dataVersion` in `dir`: its own files, else its delta
 * segment over a base's files (the base taken from memory when this process
 * opened it last); with neither, the newest version's files there (a base the
 * caller brings up to date with a delta; not with `orNewest` false), or
 * nothing. A file that fails a check — format, data version, size, a section's
 * CRC-32, a delta's base — is refused with the reason: the caller builds from
 * the store instead.
 */
export async function openIndexFiles(
  dir: string | null,
  dataVersion: string | null,
  options: { orNewest?: boolean } = {},
): Promise<OpenedIndex> {
  if (!dir) return { index: null, refused: null };
  const started = performance.now();
  const stem = dataVersion === null ? null : stemOf(dataVersion);
  if (stem !== null && (await exists(join(dir, `${stem}.json`)))) return openStem(dir, stem, started);
  // a small change: the base's files and the delta segment over them
  if (dataVersion !== null && (await exists(join(dir, deltaNameOf(dataVersion)))))
    return openWithDelta(dir, dataVersion, started);
  const chosen = options.orNewest !== false ? await newestStem(dir) : null;
  if (!chosen) return { index: null, refused: null };
  return openStem(dir, chosen, started);
}

/**
 * The base files this process opened last, so that a delta over them (the next snapshot's, or the next load's)
 * is applied to the index in memory instead of reading the base again: one base at a time, held weakly (a writer
 * that only reads the fingerprints lets it go); an index made of it and a delta holds it (`baseKept`).
 */
let lastBase: { dir: string; base: DeltaBase; manifest: IndexManifest; ref: WeakRef<SearchIndex> } | null = null;
const baseKept = new WeakMap<SearchIndex, SearchIndex>();

/** `derived` (`from.withDelta(…)`) keeps `from`'s base as `from` did, for the next delta segment over it. */
export function keepBase(derived: SearchIndex, from: SearchIndex): void {
  baseKept.set(derived, baseKept.get(from) ?? from);
}

/** The base index of a delta header: the one this process holds when it matches, else opened from its files. */
async function baseOf(dir: string, header: DeltaHeader, started: number): Promise<OpenedIndex> {
  const held = lastBase;
  const index = held?.ref.deref();
  const b = header.base;
  if (
    held &&
    index &&
    held.dir === dir &&
    held.base.data_version === b.data_version &&
    held.base.creators === b.creators &&
    held.base.bytes === b.bytes &&
    held.base.skeleton_crc32 === b.skeleton_crc32
  )
    return { index, manifest: held.manifest, ms: performance.now() - started };
  return openStem(dir, stemOf(b.data_version), started);
}

async function openWithDelta(dir: string, dataVersion: string, started: number): Promise<OpenedIndex> {
  const name = deltaNameOf(dataVersion);
  let file: Buffer;
  try {
    file = await readFile(join(dir, name));
  } catch (error) {
    return { index: null, refused: `delta ${name} unreadable: ${(error as Error).message}` };
  }
  const header = deltaHeader(file);
  if (typeof header === 'string') return { index: null, refused: `${name}: ${header}` };
  const base = await baseOf(dir, header, started);
  if (!base.index) return { index: null, refused: `${name}: its base files: ${base.refused ?? 'none'}` };
  const delta = await decodeDelta(file, dataVersion, deltaBaseOf(base.manifest));
  if (typeof delta === 'string') return { index: null, refused: `${name}: ${delta}` };
  const index = base.index.withDelta(delta);
  baseKept.set(index, base.index);
  return {
    index,
    manifest: base.manifest,
    ms: performance.now() - started,
    delta: header,
  };
}

/** The sections of each index opened from files, for the next open in the same folder to take the unchanged ones. */
const openedSections = new WeakMap<SearchIndex, { manifest: IndexManifest; sections: Uint8Array<ArrayBuffer>[] }>();
/**
 * An open reuses sections only while what the new index would keep alive (its file's bytes, and the bytes of the
 * buffers its reused sections lie in that it does not use) is at most this many times its file's bytes; past it,
 * it reads its file whole.
 */
const RETAIN_MAX = 1.5;

/** The files of `stem`, checked; unchanged sections taken from the index this process opened last (`reuse`). */
async function openStem(dir: string, chosen: string, started: number, reuse = true): Promise<OpenedIndex> {
  let manifest: IndexManifest;
  try {
    manifest = JSON.parse(await readFile(join(dir, `${chosen}.json`), 'utf8')) as IndexManifest;
  } catch (error) {
    return { index: null, refused: `manifest ${chosen}.json unreadable: ${(error as Error).message}` };
  }
  const problem = checkManifest(manifest, chosen);
  if (problem) return { index: null, refused: `${chosen}.json: ${problem}` };
  const held = reuse ? reusable(dir, manifest) : new Map<number, Uint8Array<ArrayBuffer>>();
  const before = held.size > 0 ? lastBase?.ref.deref()?.lookalikeView().data.discovery : undefined;
  // taken from memory and found wanting (the skeleton's checks, or what decoding them says): read whole instead
  const again = (): Promise<OpenedIndex> => openStem(dir, chosen, started, false);
  try {
    // read and checked in a worker; decoded and prepared here a few ms at a time: requests go on meanwhile
    const listed = manifest.sections
      .map(([offset, length, crc], i) => [i, offset, length, crc] as const)
      .filter(([i]) => !held.has(i))
      .sort((a, b) => a[1] - b[1]);
    const sections: Uint8Array<ArrayBuffer>[] = new Array(manifest.sections.length);
    let checked: Promise<string | null> | null = null;
    // the lookalike vectors (no search reads them; about 40 % of the bytes) are checked after a mapped open
    const mapped = mapsIndexFiles()
      ? await mapVerified(join(dir, manifest.file), manifest.bytes, listed, laterSections(manifest.skeleton))
      : null;
    if (typeof mapped === 'string') return { index: null, refused: `${manifest.file}: ${mapped}` };
    if (mapped) {
      listed.forEach(([i], k) => {
        const view = mapped.views[k]!;
        sections[i] = view;
        mappedUse.set(view.buffer, (mappedUse.get(view.buffer) ?? 0) + view.byteLength);
      });
      checked = mapped.later;
    } else {
      const got = await readVerified(join(dir, manifest.file), manifest.bytes, listed, ALIGN);
      if (typeof got === 'string') return { index: null, refused: `${manifest.file}: ${got}` };
      listed.forEach(([i, , length], k) => {
        sections[i] = new Uint8Array(got.buffer, got.at[k]!, length);
      });
    }
    const read = performance.now();
    let reused = 0;
    for (const [i, view] of held) {
      sections[i] = view;
      reused += view.byteLength;
    }
    const { data, suffixes, prepared } = (await runSliced(
      decodePartSteps(manifest.skeleton, sections),
      OPEN_SLICE_MS,
    ))!;
    if (data.version !== manifest.data_version || data.ids.length !== manifest.creators)
      return held.size > 0
        ? again()
        : { index: null, refused: `${manifest.file}: its contents do not match its manifest` };
    if (!prepared) return { index: null, refused: `${manifest.file}: holds no handle table or lookalike vectors` };
    const decoded = performance.now();
    let index: SearchIndex | null = null;
    // a refusal of the sections checked after the open: a later open takes none of this index's sections
    const late = checked?.then((refused) => {
      if (refused !== null && index) openedSections.delete(index);
      return refused === null ? null : `${manifest.file}: ${refused}`;
    });
    if (late)
      // answered once the vectors are taken (or not), so that a caller awaiting the check finds them in place
      checked = adoptPreparedPartsLater(data, prepared, late).then(() => late);
    else adoptPreparedParts(data, prepared);
    await prepareShareKernel(data.discovery, data.ids.length, OPEN_SLICE_MS, before);
    index = new SearchIndex(data, undefined, null, new Map(suffixes));
    openedSections.set(index, { manifest, sections });
    lastBase = { dir, base: deltaBaseOf(manifest), manifest, ref: new WeakRef(index) };
    const now = performance.now();
    const steps = { read: read - started, decode: decoded - read, prepare: now - decoded, reused };
    return { index, manifest, ms: now - started, steps, ...(checked ? { checked } : {}) };
  } catch (error) {
    if (held.size > 0) return again();
    return { index: null, refused: `${manifest.file}: ${(error as Error).message}` };
  }
}

/** Threads that check a mapped file's sections: one per core, up to four (the check is most of a mapped open). */
const VERIFY_WORKERS = Math.max(1, Math.min(4, availableParallelism()));

/**
 * The listed sections of the data file at `path` (by offset) as views over its mapping, once those not in
 * `laterOnes` pass their CRC-32 (read in worker threads through the page cache: checking a file does not make it
 * resident here), or why it is refused; `later` checks the rest after. The mapping and the checks are of the
 * same open file, whatever is renamed over its name meanwhile. Null when the file could not be mapped: the
 * caller reads it instead.
 */
async function mapVerified(
  path: string,
  bytes: number,
  listed: ReadonlyArray<readonly [number, number, number, number]>,
  laterOnes: ReadonlySet<number>,
): Promise<{ views: Array<Uint8Array<ArrayBuffer>>; later: Promise<string | null> | null } | string | null> {
  const now = listed.filter(([i]) => !laterOnes.has(i));
  const later = listed.filter(([i]) => laterOnes.has(i));
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    return (error as Error).message;
  }
  let closeLater = false;
  try {
    const refused = await verifySections(handle.fd, bytes, now, VERIFY_WORKERS);
    if (refused !== null) return refused;
    let views: Array<Uint8Array<ArrayBuffer>> | null = null;
    try {
      views = mapSections(
        path,
        handle.fd,
        bytes,
        listed.map(([, offset, length]) => [offset, length] as const),
      );
    } catch {
      // the kernel would not map it (address space, a limit): the file is read into memory instead
    }
    if (!views) return null;
    if (later.length === 0) return { views, later: null };
    // the rest checked after the open, on the same open file, closed once they are
    closeLater = true;
    return {
      views,
      later: verifySections(handle.fd, bytes, later, VERIFY_WORKERS).finally(() =>
        handle.close().catch(() => undefined),
      ),
    };
  } catch (error) {
    return (error as Error).message;
  } finally {
    if (!closeLater) await handle.close();
  }
}

/** The sections a mapped open checks after it opens: the lookalike vectors' (read only by lookalike requests). */
function laterSections(skeleton: Skeleton): Set<number> {
  const out = new Set<number>();
  for (const [s, place] of sectionPlaces(skeleton)) if (place.startsWith('.prepared.lookalikes')) out.add(s);
  return out;
}

/**
 * The sections of `manifest` that the index this process opened last from `dir` holds unchanged — the same place
 * in the skeleton, length and CRC-32 — as views over that index's bytes, so that a snapshot's new files are read
 * only where they changed (docs/search.md, "Opening"). None when the index would keep more than `RETAIN_MAX`
 * times the file's bytes alive (each reused section keeps its whole buffer: an earlier file's, or its mapping).
 */
function reusable(dir: string, manifest: IndexManifest): Map<number, Uint8Array<ArrayBuffer>> {
  const out = new Map<number, Uint8Array<ArrayBuffer>>();
  const index = lastBase?.dir === dir ? lastBase.ref.deref() : undefined;
  const old = index && openedSections.get(index);
  // the same version again (a retry, a refresh) is read whole: its file is what is in question
  if (!old || old.manifest.data_version === manifest.data_version) return out;
  // files written without digests are read whole: length and CRC-32 alone do not prove the bytes the same
  if (!hasDigests(old.manifest) || !hasDigests(manifest)) return out;
  const key = (m: IndexManifest, s: number, place: string): string => {
    const [, length, crc] = m.sections[s] ?? [0, -1, 0];
    return `${place}|${length}|${crc}|${m.digests![s]}`;
  };
  const before = new Map<string, number>();
  for (const [s, place] of sectionPlaces(old.manifest.skeleton)) before.set(key(old.manifest, s, place), s);
  for (const [s, place] of sectionPlaces(manifest.skeleton)) {
    const o = before.get(key(manifest, s, place));
    const view = o === undefined ? undefined : old.sections[o];
    if (view && view.byteLength === manifest.sections[s]![1]) out.set(s, view);
  }
  // what the new index would keep alive but not use: each reused buffer's bytes that held sections (all of a
  // buffer read into memory; of a mapping, the sections its own open used, the only pages ever touched) less the
  // sections taken from it now
  const used = new Map<ArrayBuffer, number>();
  for (const view of out.values()) used.set(view.buffer, (used.get(view.buffer) ?? 0) + view.byteLength);
  let dead = 0;
  for (const [buffer, now] of used) dead += Math.max(0, (mappedUse.get(buffer) ?? buffer.byteLength) - now);
  return manifest.bytes + dead <= RETAIN_MAX * manifest.bytes ? out : new Map();
}

/** Per region of a mapped data file, the bytes of the sections its open took from it (the rest it never touches). */
const mappedUse = new WeakMap<ArrayBuffer, number>();

/** Each section the skeleton names, by its place in the skeleton (the path of keys to it): plain recursion, a few ms. */
function sectionPlaces(skeleton: Skeleton): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  const ref = (value: Skeleton | undefined, place: string): void => {
    if (typeof value === 'number') out.push([value, place]);
  };
  const walk = (node: Skeleton, path: string): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) walk(node[i]!, `${path}[${i}]`);
      return;
    }
    switch (node.$) {
      case 'typed':
      case 'bits':
        ref(node.s, `${path}.s`);
        return;
      case 'strings':
        ref(node.bytes, `${path}.bytes`);
        ref(node.offsets, `${path}.offsets`);
        return;
      case 'packed':
        for (const [j, b] of ((node.blocks ?? []) as Array<Record<string, Skeleton>>).entries())
          for (const k of ['bytes', 'offsets', 'nulls']) ref(b[k], `${path}.blocks[${j}].${k}`);
        return;
      case 'map':
        for (const [k, v] of (node.entries ?? []) as Skeleton[][]) walk(v ?? null, `${path}{${JSON.stringify(k)}}`);
        return;
      default:
        for (const k in node) if (k !== '$') walk(node[k]!, `${path}.${k}`);
    }
  };
  walk(skeleton, '');
  return out;
}

function checkManifest(m: IndexManifest, stem: string): string | null {
  if (m.format !== FORMAT || m.format_version !== FORMAT_VERSION)
    return `format ${m.format} ${m.format_version}, expected ${FORMAT} ${FORMAT_VERSION}`;
  if (typeof m.data_version !== 'string' || stemOf(m.data_version) !== stem)
    return 'names a data version other than its file name says';
  if (crc32(JSON.stringify(m.skeleton)) !== m.skeleton_crc32) return 'its skeleton fails its checksum';
  if (!Array.isArray(m.sections) || m.file !== `${stem}.bin`) return 'names another data file';
  for (const [offset, length] of m.sections)
    if (!(offset % ALIGN === 0 && offset >= 0 && length >= 0 && offset + length <= m.bytes))
      return 'a section lies outside the file';
  return null;
}

/** CRC-32 of `view`, a chunk at a time with a turn of the event loop between chunks. */
/** The first 128 bits of a section's SHA-256, hex (taken off the event loop, by Web Crypto). */
async function digest(view: Uint8Array): Promise<string> {
  const hash = await crypto.subtle.digest('SHA-256', view as Uint8Array<ArrayBuffer>);
  return Buffer.from(hash, 0, 16).toString('hex');
}

/** Whether a manifest names a digest for each of its sections. */
function hasDigests(m: IndexManifest): boolean {
  return (
    Array.isArray(m.digests) &&
    m.digests.length === m.sections.length &&
    m.digests.every((d) => typeof d === 'string' && d.length === 32)
  );
}

async function checksum(view: Uint8Array): Promise<number> {
  let crc = 0;
  for (let at = 0; at < view.byteLength; at += CHUNK) {
    if (at > 0) await new Promise((r) => setImmediate(r));
    crc = crc32(view.subarray(at, at + CHUNK), crc);
  }
  return crc;
}

/** The stem of the newest manifest in `dir` (by its write time), or null. */
async function newestStem(dir: string): Promise<string | null> {
  let best: { stem: string; at: string } | null = null;
  for (const name of await listDir(dir)) {
    if (!name.endsWith('.json') || !name.startsWith('search-')) continue;
    const stem = name.slice(0, -'.json'.length);
    try {
      const m = JSON.parse(await readFile(join(dir, name), 'utf8')) as Partial<IndexManifest>;
      const at = String(m.written_at ?? '');
      if (!best || at > best.at) best = { stem, at };
    } catch {
      // an unreadable manifest is no candidate
    }
  }
  return best?.stem ?? null;
}

/** Removes all but the newest `keep` versions' files besides `current` (and any partial file). */
export async function pruneIndexFiles(dir: string, keep: number, current: string): Promise<void> {
  const names = await listDir(dir);
  const stems: Array<{ stem: string; at: string }> = [];
  for (const name of names) {
    if (name.endsWith('.partial') && !name.startsWith(current)) await rm(join(dir, name), { force: true });
    if (!name.endsWith('.json') || !name.startsWith('search-') || name.startsWith(current)) continue;
    const stem = name.slice(0, -'.json'.length);
    const m = await readFile(join(dir, name), 'utf8').then(
      (t) => JSON.parse(t) as Partial<IndexManifest>,
      () => ({}) as Partial<IndexManifest>,
    );
    stems.push({ stem, at: String(m.written_at ?? '') });
  }
  stems.sort((a, b) => (a.at < b.at ? 1 : -1));
  for (const { stem } of stems.slice(keep)) {
    await rm(join(dir, `${stem}.json`), { force: true });
    await rm(join(dir, `${stem}.bin`), { force: true });
  }
  await pruneDeltas(dir, KEEP_DELTAS, null);
}

async function listDir(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}

async function exists(path: string): Promise<boolean> {
  return open(path, 'r').then(
    async (h) => {
      await h.close();
      return true;
    },
    () => false,
  );
}

/** The index of the snapshot a replica is about to switch to, opened before the switch (see `prefetchIndexFiles`). */
let prefetched: { dir: string; version: string; index: SearchIndex } | null = null;

/**
 * Opens the files of `dataVersion` ahead of a snapshot switch, so that the
 * switch takes the index with the snapshot: the holder of the store that
 * switches finds it with `takePrefetched` the moment it sees the new data
 * version, and never answers that version from SQL meanwhile. One is held at
 * a time; answers whether the files opened.
 */
export async function prefetchIndexFiles(dir: string | null, dataVersion: string): Promise<OpenedIndex> {
  const opened = await openIndexFiles(dir, dataVersion, { orNewest: false });
  // fully prepared before the switch (the parts the files hold are adopted: this is a turn of the loop)
  await opened.index?.prepare();
  prefetched = opened.index && dir ? { dir, version: dataVersion, index: opened.index } : null;
  return opened;
}

/** The prefetched index of `dataVersion` in `dir`, handed over once (null: none). */
export function takePrefetched(dir: string | null, dataVersion: string): SearchIndex | null {
  if (!prefetched || prefetched.dir !== dir || prefetched.version !== dataVersion) return null;
  const { index } = prefetched;
  prefetched = null;
  return index;
}
