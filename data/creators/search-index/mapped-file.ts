import { createRequire } from 'node:module';

/**
 * Index data files memory-mapped (docs/search.md, "Opening, mapped"): a section is a view over the file's pages, read in
 * by the kernel when a search first touches them and dropped under memory pressure, so a process holds resident
 * only what its searches use. The mapping is read-only and shared (the index never writes its arrays). The
 * addon, `great-big-file-reader`, maps a whole file once and hands out buffers over parts of it, so a file larger
 * than a buffer can be (4 GB) is mapped as regions; the mapping goes when the last of its regions is collected.
 * It is an optional dependency, built from source at install; where it did not build (or mapping is turned off,
 * CDS_SEARCH_INDEX_MMAP=false) files are read into memory instead.
 */
interface Addon {
  mapFile(path: string, fd: number): { handle: bigint; length: bigint };
  getBuffer(handle: bigint, offset: bigint, length: number): Buffer;
  unmapFile(handle: bigint): void;
}

let addon: Addon | null | undefined;
let enabled = true;
/** The buffers this module mapped (what `isMapped` answers). */
const mappings = new WeakSet<ArrayBuffer>();
/** Per mapping, its regions not yet collected; the last one collected unmaps it. */
const live = new Map<bigint, number>();
const collected = new FinalizationRegistry<bigint>((handle) => {
  const left = (live.get(handle) ?? 1) - 1;
  if (left > 0) {
    live.set(handle, left);
    return;
  }
  live.delete(handle);
  addon?.unmapFile(handle);
});

/** A region is at most this long, unless one section alone is longer (a buffer holds up to 4 GB). */
const REGION_BYTES = 1024 * 1024 * 1024;

function load(): Addon | null {
  if (addon === undefined) {
    try {
      // the compiled addon itself (its package's wrapper is an ES module that finds it the same way)
      addon = createRequire(import.meta.url)('great-big-file-reader/build/Release/great-big-file-reader.node') as Addon;
    } catch {
      addon = null;
    }
  }
  return addon;
}

/** Turns mapping on or off for the opens that follow (the service sets it from its configuration). */
export function setIndexFileMapping(on: boolean): void {
  enabled = on;
}

/** Whether opens map their data files (mapping on, and the addon loaded). */
export function mapsIndexFiles(): boolean {
  return enabled && load() !== null;
}

/**
 * The sections (`[offset, length]`, ascending by offset, 8-byte aligned) of the file at `path`, open as `fd` with
 * `bytes` bytes, as views over its mapping (the mapping outlives the descriptor), or null when this process reads
 * files instead. Sections are grouped into regions of about a gigabyte, none split between two.
 */
export function mapSections(
  path: string,
  fd: number,
  bytes: number,
  sections: ReadonlyArray<readonly [number, number]>,
): Array<Uint8Array<ArrayBuffer>> | null {
  const a = enabled && bytes > 0 ? load() : null;
  if (!a) return null;
  const { handle, length } = a.mapFile(path, fd);
  if (Number(length) !== bytes) {
    a.unmapFile(handle);
    throw new Error(`holds ${length} bytes, its manifest says ${bytes}`);
  }
  const out: Array<Uint8Array<ArrayBuffer>> = [];
  let regions = 0;
  try {
    for (let i = 0; i < sections.length; ) {
      const start = sections[i]![0];
      let end = start + sections[i]![1];
      let j = i + 1;
      while (j < sections.length && sections[j]![0] + sections[j]![1] - start <= REGION_BYTES) {
        end = Math.max(end, sections[j]![0] + sections[j]![1]);
        j++;
      }
      // an empty region (empty sections only) still gives each its own empty view
      const region = end > start ? a.getBuffer(handle, BigInt(start), end - start) : Buffer.alloc(0);
      const buffer = region.buffer as ArrayBuffer;
      if (end > start) {
        mappings.add(buffer);
        collected.register(buffer, handle);
        regions++;
      }
      for (let k = i; k < j; k++) {
        const [offset, size] = sections[k]!;
        out.push(new Uint8Array(buffer, region.byteOffset + offset - start, size));
      }
      i = j;
    }
  } finally {
    if (regions === 0) a.unmapFile(handle);
    else live.set(handle, (live.get(handle) ?? 0) + regions);
  }
  return out;
}

/** Whether `buffer` is a region of a mapped file (not memory this process allocated). */
export function isMapped(buffer: ArrayBufferLike): boolean {
  return mappings.has(buffer as ArrayBuffer);
}
