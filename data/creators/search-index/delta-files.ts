import { crc32 } from 'node:zlib';
import { Bitset } from './bitset.js';
import type { DeltaRow, SearchDelta } from './search-delta.js';

/**
 * A delta segment (docs/search.md, "Delta segments"): the creators changed since
 * a base's index files, written beside them for a load under the delta
 * threshold instead of a new index. One small file per data version: a first
 * line of JSON (the header: format, the data version, the base's data version
 * and the identity of its files, the body's length and CRC-32), then the body:
 * a line with the base positions no longer current, then a line per changed
 * creator's row (each JSON), read 20 ms at a time with the event loop turning
 * between (a delta of tens of thousands of rows is tens of MB).
 * A reader opens the base's files and applies it; anything that does not match
 * is refused.
 */
const DELTA_FORMAT = 'cds-search-delta';
/** 2: the body a line per row (1, one JSON document, was parsed in one block). */
const DELTA_FORMAT_VERSION = 2;
/** How long the decode runs between two turns of the event loop, ms (checked every `CHECK` rows). */
const SLICE_MS = 20;
const CHECK = 50;

/**
 * The most changed creators a published delta segment holds; a larger change is published as new index files.
 * A delta's rows are tested one by one on every search (about 1 µs a row at 1M creators, where a mixed search on
 * the base costs 1–1.4 ms), so its cost grows with the rows whatever the store's size: measured at 1M, mixed
 * searches lost 19–35 % of their throughput with 1,000 rows, 40 % with 2,000 and 77 % with 10,000
 * (docs/search.md, "Delta segments").
 */
export const PUBLISHED_DELTA_MAX = 500;

/** The base files a delta was computed against: its manifest's data version and identity. */
export interface DeltaBase {
  data_version: string;
  creators: number;
  /** The base data file's size and its skeleton's CRC-32: files of the base version written again differ here. */
  bytes: number;
  skeleton_crc32: number;
}

export interface DeltaHeader {
  format: string;
  format_version: number;
  data_version: string;
  base: DeltaBase;
  changed: number;
  dead: number;
  written_at: string;
  body_bytes: number;
  body_crc32: number;
}

/** A row as the file holds it: its audience as [dimension, [key, share][]][]. */
type StoredRow = Omit<DeltaRow, 'audience'> & { audience: Array<[string, Array<[string, number]>]> };

/** The file's bytes: header line, body. */
export function encodeDelta(delta: SearchDelta, base: DeltaBase): Buffer {
  const dead: number[] = [];
  delta.dead.forEach((p) => dead.push(p));
  const lines = [JSON.stringify(dead)];
  for (const r of delta.rows) {
    const row: StoredRow = { ...r, audience: [...r.audience].map(([d, keys]) => [d, [...keys]]) };
    lines.push(JSON.stringify(row));
  }
  const bytes = Buffer.from(lines.join('\n'), 'utf8');
  const header: DeltaHeader = {
    format: DELTA_FORMAT,
    format_version: DELTA_FORMAT_VERSION,
    data_version: delta.version,
    base,
    changed: delta.rows.length,
    dead: dead.length,
    written_at: new Date().toISOString(),
    body_bytes: bytes.byteLength,
    body_crc32: crc32(bytes),
  };
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`, 'utf8'), bytes]);
}

/** The header alone (the first line), or why it cannot be read. */
export function deltaHeader(file: Buffer): DeltaHeader | string {
  const end = file.indexOf(10);
  if (end < 0) return 'no header line';
  try {
    const header = JSON.parse(file.subarray(0, end).toString('utf8')) as DeltaHeader;
    if (header.format !== DELTA_FORMAT || header.format_version !== DELTA_FORMAT_VERSION)
      return `format ${header.format} ${header.format_version}, expected ${DELTA_FORMAT} ${DELTA_FORMAT_VERSION}`;
    return header;
  } catch (error) {
    return `header unreadable: ${(error as Error).message}`;
  }
}

/**
 * The delta of `dataVersion` over the base `base` (the files it is applied to), or why not: the header's format,
 * data version and base identity must match, the body its length and CRC-32, every dead position lie in the base,
 * and the counts match the header.
 */
export async function decodeDelta(file: Buffer, dataVersion: string, base: DeltaBase): Promise<SearchDelta | string> {
  const header = deltaHeader(file);
  if (typeof header === 'string') return header;
  if (header.data_version !== dataVersion) return 'names another data version';
  const b = header.base;
  if (
    !b ||
    b.data_version !== base.data_version ||
    b.creators !== base.creators ||
    b.bytes !== base.bytes ||
    b.skeleton_crc32 !== base.skeleton_crc32
  )
    return 'computed against other base files than these';
  const body = file.subarray(file.indexOf(10) + 1);
  if (body.byteLength !== header.body_bytes)
    return `body of ${body.byteLength} bytes, its header says ${header.body_bytes}`;
  if (crc32(body) !== header.body_crc32) return 'body fails its checksum';
  try {
    let at = 0;
    const line = (): string | null => {
      if (at > body.byteLength) return null;
      const end = body.indexOf(10, at);
      const text = body.subarray(at, end < 0 ? body.byteLength : end).toString('utf8');
      at = end < 0 ? body.byteLength + 1 : end + 1;
      return text;
    };
    const positions = JSON.parse(line() ?? '[]') as number[];
    if (positions.length !== header.dead) return 'holds other counts than its header says';
    const dead = new Bitset(base.creators);
    for (const p of positions) {
      if (!Number.isInteger(p) || p < 0 || p >= base.creators) return 'names a position outside its base';
      dead.add(p);
    }
    const rows: DeltaRow[] = [];
    let slice = performance.now();
    for (let text = line(); text !== null; text = line()) {
      const r = JSON.parse(text) as StoredRow;
      rows.push({ ...r, audience: new Map(r.audience.map(([d, keys]) => [d, new Map(keys)])) });
      if (rows.length % CHECK === 0 && performance.now() - slice > SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        slice = performance.now();
      }
    }
    if (rows.length !== header.changed) return 'holds other counts than its header says';
    return { version: header.data_version, dead, rows };
  } catch (error) {
    return `body unreadable: ${(error as Error).message}`;
  }
}
