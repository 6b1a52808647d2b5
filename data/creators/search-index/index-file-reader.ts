import { Worker } from 'node:worker_threads';

/**
 * Reads an index data file and checks its sections' CRC-32 in a worker thread, off the event loop
 * (docs/search.md, "Opening"): the file's bytes come back as one ArrayBuffer moved to the caller, not copied.
 * The worker is plain JavaScript evaluated from this string, so it runs the same under tsx, the bundle and
 * the tests.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { openSync, readSync, fstatSync, closeSync } = require('node:fs');
const { crc32 } = require('node:zlib');
const { path, bytes, from, sections, chunk } = workerData;
try {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size !== bytes) throw new Error('holds ' + size + ' bytes, its manifest says ' + bytes);
    const length = bytes - from;
    const buffer = new ArrayBuffer(length);
    const view = new Uint8Array(buffer);
    // each section is checked as soon as the bytes read hold it
    let next = 0;
    let refused = null;
    for (let at = 0; at < length && refused === null; ) {
      const n = readSync(fd, view, at, Math.min(chunk, length - at), from + at);
      if (n === 0) throw new Error('ended before its size');
      at += n;
      for (; next < sections.length; next++) {
        const [i, offset, len, crc] = sections[next];
        if (offset - from + len > at) break;
        if (crc32(new Uint8Array(buffer, offset - from, len)) !== crc) {
          refused = 'section ' + i + ' fails its checksum';
          break;
        }
      }
    }
    if (refused !== null) parentPort.postMessage({ refused });
    else parentPort.postMessage({ buffer }, [buffer]);
  } finally {
    closeSync(fd);
  }
} catch (error) {
  parentPort.postMessage({ refused: error.message });
}
`;

/** Reads go by this much at a time (the worker's synchronous reads; its CRC-32 follows each). */
const CHUNK = 16 * 1024 * 1024;

/**
 * The bytes `[from, bytes)` of the data file at `path` (its size must be `bytes`), every section listed
 * (`[number, offset, length, crc]`, offsets in the whole file, ascending, within the range) checked against
 * its CRC-32: the buffer, or why the file is refused.
 */
export function readVerified(
  path: string,
  bytes: number,
  from: number,
  sections: ReadonlyArray<readonly [number, number, number, number]>,
): Promise<ArrayBuffer | string> {
  return new Promise((resolve) => {
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: { path, bytes, from, sections, chunk: CHUNK },
    });
    let settled = false;
    const done = (value: ArrayBuffer | string): void => {
      if (settled) return;
      settled = true;
      resolve(value);
    };
    worker.once('message', (m: { buffer?: ArrayBuffer; refused?: string }) => done(m.buffer ?? m.refused ?? '?'));
    worker.once('error', (error: Error) => done(error.message));
    worker.once('exit', (code) => done(`its reader stopped (exit code ${code})`));
  });
}
