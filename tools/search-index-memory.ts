// Where the search index's memory goes (docs/search.md, "Where the memory goes"):
// builds the index of a store, then walks what it holds and reports, per part,
// typed-array bytes (off the JS heap), JS strings, and other heap objects, with
// the process's heap and external memory before and after.
//   node --expose-gc bin/run-ts.mjs tools/search-index-memory.ts <cds.duckdb> [--write | --open]
// --write writes the index's files beside the store (search-index/), part by part with no index in memory (its
// time and peak resident memory); --open opens them instead of building; --sections prints the newest files'
// bytes per creator by part, from their manifest;
// --json (last) prints the figures as one JSON line instead (the search-scale bench builds its files so).
import { Store } from '../data/store.js';
import { loadSearchIndex, writeSearchIndexFiles } from '../data/creators/search-index/search-index.loader.js';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { indexDirOf, type IndexManifest, openIndexFiles } from '../data/creators/search-index/index-files.js';
import type { Skeleton } from '../data/creators/search-index/index-files.codec.js';
import type { SearchIndex } from '../data/creators/search-index/search-index.js';

interface Tally {
  typed: number;
  strings: number;
  stringChars: number;
  objects: number;
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

function memory(): { heap: number; external: number; rss: number } {
  gc();
  gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, external: m.arrayBuffers, rss: m.rss };
}

/** Walks a value, adding what it holds to `tally` (each object once). */
function walk(value: unknown, tally: Tally, seen: Set<object>): void {
  if (typeof value === 'string') {
    tally.strings++;
    tally.stringChars += value.length;
    return;
  }
  if (value === null || typeof value !== 'object' || seen.has(value)) return;
  seen.add(value);
  if (ArrayBuffer.isView(value)) {
    tally.typed += value.byteLength;
    return;
  }
  tally.objects++;
  if (value instanceof Map) {
    for (const [k, v] of value) {
      walk(k, tally, seen);
      walk(v, tally, seen);
    }
    return;
  }
  for (const v of Object.values(value)) walk(v, tally, seen);
}

function report(parts: Record<string, unknown>, size: number): void {
  const seen = new Set<object>();
  for (const [name, part] of Object.entries(parts)) {
    const t: Tally = { typed: 0, strings: 0, stringChars: 0, objects: 0 };
    walk(part, t, seen);
    const per = (n: number): string => (n / size).toFixed(1);
    console.log(
      `${name.padEnd(28)} typed ${per(t.typed).padStart(7)} B/creator  strings ${t.strings.toLocaleString('en-US').padStart(11)} (${per(t.stringChars)} chars/creator)  objects ${t.objects.toLocaleString('en-US').padStart(11)}`,
    );
  }
}

/**
 * The newest index files' bytes per creator by part, from the manifest alone
 * (each section's length, attributed to the skeleton path that names it): what
 * an opened index holds in typed arrays, part by part, at any size.
 */
async function sections(dir: string): Promise<void> {
  const names = (await readdir(dir)).filter((n) => n.startsWith('search-') && n.endsWith('.json'));
  const manifests = await Promise.all(
    names.map(async (n) => JSON.parse(await readFile(join(dir, n), 'utf8')) as IndexManifest),
  );
  const m = manifests.sort((a, b) => (a.written_at < b.written_at ? 1 : -1))[0];
  if (!m) throw new Error(`no index files in ${dir}`);
  const byPart = new Map<string, number>();
  const visit = (node: Skeleton, path: string[], packed = false): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const n of node) visit(n, path, packed);
      return;
    }
    const tag = node.$;
    for (const [k, v] of Object.entries(node)) {
      // a section number (a packed string block's too): its bytes go to the part it belongs to (five names deep tell the parts apart)
      if (typeof v === 'number' && (tag !== undefined || packed) && ['s', 'bytes', 'offsets', 'nulls'].includes(k)) {
        const part = [...path, ...(tag === 'typed' || tag === 'bits' || packed ? [] : [k])].slice(0, 5).join('.');
        byPart.set(part, (byPart.get(part) ?? 0) + m.sections[v]![1]);
      } else if (k !== '$') visit(v, tag === 'map' || tag === 'packed' ? path : [...path, k], tag === 'packed');
    }
  };
  visit(m.skeleton, []);
  const rows = [...byPart].sort((a, b) => b[1] - a[1]);
  console.log(
    `${m.creators.toLocaleString('en-US')} creators, ${m.file}: ${(m.bytes / m.creators).toFixed(1)} B/creator`,
  );
  for (const [part, bytes] of rows) console.log(`${(bytes / m.creators).toFixed(1).padStart(8)} B/creator  ${part}`);
}

async function main(): Promise<void> {
  const [path, flag, format] = process.argv.slice(2);
  const json = format === '--json';
  if (!path) throw new Error('usage: search-index-memory.ts <cds.duckdb> [--write | --open]');
  const dir = indexDirOf(path);
  if (flag === '--sections' && dir) return sections(dir);
  const store = await Store.open(path, { readOnly: true, memoryLimit: '2GB' });
  // each step's time and resident memory on stderr (the bench reads stdout's last line)
  const step = (name: string, ms: number): void => {
    const rss = process.memoryUsage.rss() / 1_048_576;
    process.stderr.write(`build step ${name}: ${Math.round(ms)} ms, rss ${Math.round(rss)} MB\n`);
  };
  const before = memory();
  const started = performance.now();
  if (flag === '--write' && dir) {
    // written part by part, no index in memory (and no lookalike vectors: the readers prepare their own)
    const { manifest } = await writeSearchIndexFiles(store, dir, { onStep: step });
    const ms = performance.now() - started;
    await store.close();
    const figures = {
      creators: manifest.creators,
      ms: Math.round(ms),
      max_rss_bytes: process.resourceUsage().maxRSS * 1024,
      file_bytes: manifest.bytes,
    };
    if (json) console.log(JSON.stringify(figures));
    else
      console.log(
        `${manifest.creators.toLocaleString('en-US')} creators: wrote ${manifest.file}, ${(manifest.bytes / 1_048_576).toFixed(0)} MB, ` +
          `${manifest.sections.length} sections, in ${Math.round(ms)} ms; peak resident ${(figures.max_rss_bytes / 1_048_576).toFixed(0)} MB`,
      );
    return;
  }
  let index: SearchIndex;
  if (flag === '--open' && dir) {
    const opened = await openIndexFiles(dir, null);
    if (!opened.index) throw new Error(`not opened: ${opened.refused}`);
    index = opened.index;
  } else {
    index = await loadSearchIndex(store, step);
  }
  const ms = performance.now() - started;
  await store.close();
  const after = memory();
  const data = index.lookalikeView().data;
  const size = index.size;
  if (json) {
    const figures = {
      creators: size,
      ms: Math.round(ms),
      heap_bytes: after.heap - before.heap,
      external_bytes: after.external - before.external,
      rss_bytes: after.rss - before.rss,
      max_rss_bytes: process.resourceUsage().maxRSS * 1024,
    };
    console.log(JSON.stringify(figures));
    return;
  }
  console.log(
    `${size.toLocaleString('en-US')} creators, ${flag === '--open' ? 'opened' : 'built'} in ${Math.round(ms)} ms`,
  );
  const mb = (n: number): string => `${(n / 1_048_576).toFixed(0)} MB (${(n / size).toFixed(0)} B/creator)`;
  console.log(
    `JS heap +${mb(after.heap - before.heap)}, external +${mb(after.external - before.external)}, rss +${mb(after.rss - before.rss)}`,
  );
  const { discovery, text, ...rest } = data;
  report(
    {
      ...Object.fromEntries(Object.entries(rest).filter(([k]) => k !== 'categorical' && k !== 'numeric')),
      categorical: rest.categorical,
      numeric: rest.numeric,
      'terms (postings, vocab)': discovery.terms,
      flags: discovery.flags,
      'audience lists': discovery.audience,
      'audience dense': discovery.dense,
      'audience ages': discovery.ages,
      'text (tokens, postings, trigrams)': text,
      'range suffix sets, caches': index,
    },
    size,
  );
}

await main();
