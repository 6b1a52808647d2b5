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
const { path, bytes, sections, chunk, align } = workerData;
try {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size !== bytes) throw new Error('holds ' + size + ' bytes, its manifest says ' + bytes);
    // the listed sections packed one after another, each at a multiple of align
    const at = [];
    let total = 0;
    for (const [, , length] of sections) {
      total = Math.ceil(total / align) * align;
      at.push(total);
      total += length;
    }
    const buffer = new ArrayBuffer(total);
    const view = new Uint8Array(buffer);
    let refused = null;
    for (let k = 0; k < sections.length && refused === null; k++) {
      const [i, offset, length, crc] = sections[k];
      for (let done = 0; done < length; ) {
        const n = readSync(fd, view, at[k] + done, Math.min(chunk, length - done), offset + done);
        if (n === 0) throw new Error('ended before its size');
        done += n;
      }
      if (crc32(new Uint8Array(buffer, at[k], length)) !== crc) refused = 'section ' + i + ' fails its checksum';
    }
    if (refused !== null) parentPort.postMessage({ refused });
    else parentPort.postMessage({ buffer, at }, [buffer]);
  } finally {
    closeSync(fd);
  }
} catch (error) {
  parentPort.postMessage({ refused: error.message });
}
`;

/** A section is read this much at a time (the worker's synchronous reads; its CRC-32 follows). */
const CHUNK = 16 * 1024 * 1024;

/**
 * The listed sections (`[number, offset, length, crc]`, offsets in the file) of the data file at `path` (its size
 * must be `bytes`), each checked against its CRC-32 and packed into one buffer at multiples of `align`: the buffer
 * and each listed section's place in it, or why the file is refused.
 */
export function readVerified(
  path: string,
  bytes: number,
  sections: ReadonlyArray<readonly [number, number, number, number]>,
  align: number,
): Promise<{ buffer: ArrayBuffer; at: number[] } | string> {
  return inWorker(
    WORKER,
    { path, bytes, sections, chunk: CHUNK, align },
    (m: { buffer?: ArrayBuffer; at?: number[]; refused?: string }) =>
      m.buffer && m.at ? { buffer: m.buffer, at: m.at } : (m.refused ?? '?'),
  );
}

/**
 * Runs `source` in a worker thread with `workerData`: what `answer` makes of its one message, or the worker's
 * error (a string) when it fails or stops first.
 */
function inWorker<M, T>(source: string, workerData: unknown, answer: (message: M) => T | string): Promise<T | string> {
  return new Promise((resolve) => {
    const worker = new Worker(source, { eval: true, workerData });
    let settled = false;
    const done = (value: T | string): void => {
      if (settled) return;
      settled = true;
      resolve(value);
    };
    worker.once('message', (m: M) => done(answer(m)));
    worker.once('error', (error: Error) => done(error.message));
    worker.once('exit', (code) => done(`its reader stopped (exit code ${code})`));
  });
}

/**
 * The verifying worker of a mapped open: reads its sections through one reused buffer (the file's pages pass
 * through the page cache, not into this process's resident memory) and checks each section's CRC-32.
 */
const VERIFIER = `
const { parentPort, workerData } = require('node:worker_threads');
const { readSync, fstatSync } = require('node:fs');
const { crc32 } = require('node:zlib');
const { fd, bytes, sections, chunk } = workerData;
try {
  const size = fstatSync(fd).size;
  if (size !== bytes) throw new Error('holds ' + size + ' bytes, its manifest says ' + bytes);
  const view = new Uint8Array(chunk);
  let refused = null;
  for (let k = 0; k < sections.length && refused === null; k++) {
    const [i, offset, length, crc] = sections[k];
    let sum = 0;
    for (let done = 0; done < length; ) {
      const n = readSync(fd, view, 0, Math.min(chunk, length - done), offset + done);
      if (n === 0) throw new Error('ended before its size');
      sum = crc32(view.subarray(0, n), sum);
      done += n;
    }
    if (sum !== crc) refused = 'section ' + i + ' fails its checksum';
  }
  parentPort.postMessage({ refused });
} catch (error) {
  parentPort.postMessage({ refused: error.message });
}
`;

/** The verifying workers' reads, a buffer each (small: the bytes are only checked, never kept). */
const VERIFY_CHUNK = 4 * 1024 * 1024;

/**
 * Checks the listed sections (`[number, offset, length, crc]`) of the file open as `fd` (its size must be `bytes`)
 * against their CRC-32 in `workers` worker threads, the sections dealt out by size: null when all match, else why
 * the file is refused (the first failure found).
 */
export async function verifySections(
  fd: number,
  bytes: number,
  sections: ReadonlyArray<readonly [number, number, number, number]>,
  workers: number,
): Promise<string | null> {
  const shares: Array<{ bytes: number; sections: Array<readonly [number, number, number, number]> }> = Array.from(
    { length: Math.max(1, workers) },
    () => ({ bytes: 0, sections: [] }),
  );
  for (const s of [...sections].sort((a, b) => b[2] - a[2])) {
    const least = shares.reduce((a, b) => (b.bytes < a.bytes ? b : a));
    least.sections.push(s);
    least.bytes += s[2];
  }
  const results = await Promise.all(
    shares
      .filter((s) => s.sections.length > 0)
      // in file order within a share: the reads go forward through the file
      .map((share) =>
        inWorker(
          VERIFIER,
          { fd, bytes, sections: [...share.sections].sort((a, b) => a[1] - b[1]), chunk: VERIFY_CHUNK },
          (m: { refused: string | null }) => m.refused,
        ),
      ),
  );
  return results.find((r) => r !== null) ?? null;
}
