import { createRequire } from 'node:module';

/**
 * Index data files memory-mapped (docs/search.md, "Opening"): a section is a view over the file's pages, read in
 * by the kernel when a search first touches them and dropped under memory pressure, so a process holds resident
 * only what its searches use. The mapping is private and copy-on-write: nothing written to a view reaches the
 * file, and a write never faults. `@riaskov/mmap-io` is an optional dependency, built from source at install;
 * where it did not build (or mapping is turned off, CDS_SEARCH_INDEX_MMAP=false) files are read into memory.
 */
interface Mmap {
  map(size: number, protection: number, flags: number, fd: number, offset?: number, advise?: number): Buffer;
  readonly PROT_READ: number;
  readonly PROT_WRITE: number;
  readonly MAP_PRIVATE: number;
}

let binding: Mmap | null | undefined;
let enabled = true;
/** The buffers this module mapped (what `isMapped` answers; docs/search.md reports resident memory by it). */
const mappings = new WeakSet<ArrayBuffer>();

function mmap(): Mmap | null {
  if (binding === undefined) {
    try {
      const required = createRequire(import.meta.url)('@riaskov/mmap-io') as Mmap | { default: Mmap };
      binding = 'map' in required ? required : required.default;
    } catch {
      binding = null;
    }
  }
  return binding;
}

/** Turns mapping on or off for the opens that follow (the service sets it from its configuration). */
export function setIndexFileMapping(on: boolean): void {
  enabled = on;
}

/** Whether opens map their data files (mapping on, and the package loaded). */
export function mapsIndexFiles(): boolean {
  return enabled && mmap() !== null;
}

/**
 * The `bytes` of the file open as `fd`, mapped (the mapping outlives the descriptor; it goes when the buffer is
 * collected), or null when this process reads files instead.
 */
export function mapFile(fd: number, bytes: number): Uint8Array<ArrayBuffer> | null {
  const m = enabled && bytes > 0 ? mmap() : null;
  if (!m) return null;
  const buffer = m.map(bytes, m.PROT_READ | m.PROT_WRITE, m.MAP_PRIVATE, fd, 0);
  mappings.add(buffer.buffer as ArrayBuffer);
  return new Uint8Array(buffer.buffer as ArrayBuffer, buffer.byteOffset, buffer.byteLength);
}

/** Whether `buffer` is a mapped file's (not memory this process allocated). */
export function isMapped(buffer: ArrayBufferLike): boolean {
  return mappings.has(buffer as ArrayBuffer);
}
