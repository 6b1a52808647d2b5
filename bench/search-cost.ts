// What a search costs in process, without HTTP: opens a store's index files, then runs unique searches of
// the search-scale bench's workloads (its own generator) and prints, per workload, the wall time per search
// (mean, p50, p90, p99, max), the CPU time per search and the slowest searches with their totals.
//   node --max-old-space-size=16000 bin/run-ts.mjs bench/search-cost.ts <search-index folder> <creators> [workloads] [searches]
// e.g. bench/work/search-scale/creators-10000000/search-index 10000000 mixed,q+filters 1500 (docs/search.md, "At 10M again").
import { openIndexFiles } from '../data/creators/search-index/index-files.js';
import { setIndexFileMapping } from '../data/creators/search-index/mapped-file.js';

// CDS_SEARCH_INDEX_MMAP=0 reads the files into memory instead of mapping them, as the service does
setIndexFileMapping(!/^(0|false|no|off)$/i.test(process.env.CDS_SEARCH_INDEX_MMAP ?? ''));
import { generator, type WorkloadName } from './search-scale.bench.js';

const [dir, sizeArg, workloads = 'mixed', searchesArg = '1500'] = process.argv.slice(2);
if (!dir || !sizeArg) throw new Error('usage: search-cost.ts <search-index folder> <creators> [workloads] [searches]');
const size = Number(sizeArg);
const searches = Number(searchesArg);
const started = performance.now();
const opened = await openIndexFiles(dir, null);
if (!opened.index) throw new Error(`index files not opened: ${opened.refused}`);
const index = opened.index;
await index.prepare();
console.log(
  `opened and prepared in ${Math.round(performance.now() - started)} ms; rss ${Math.round(process.memoryUsage.rss() / 1_048_576)} MB`,
);
for (const name of workloads.split(',') as WorkloadName[]) {
  const next = generator(name, size, 5);
  // a warm-up first, not counted (the code's compilation, the filters' first caches)
  for (let i = 0; i < 200; i++) {
    const { filters, sort } = next();
    index.search(filters, sort, null, 25);
  }
  const times: number[] = [];
  const slowest: Array<{ ms: number; request: string }> = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < searches; i++) {
    const { filters, sort } = next();
    const t0 = performance.now();
    const page = index.search(filters, sort, null, 25);
    const ms = performance.now() - t0;
    times.push(ms);
    slowest.push({ ms, request: `${JSON.stringify({ filters, sort })} total ${page.total}` });
  }
  const used = process.cpuUsage(cpu);
  times.sort((a, b) => a - b);
  const at = (q: number): string => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(2);
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  console.log(
    `${name}: wall mean ${mean.toFixed(2)} ms, p50 ${at(0.5)}, p90 ${at(0.9)}, p99 ${at(0.99)}, max ${at(1)}; ` +
      `CPU ${((used.user + used.system) / 1000 / searches).toFixed(2)} ms per search; ` +
      // with mapped files, resident grows with the pages the searches have touched so far
      `rss ${Math.round(process.memoryUsage.rss() / 1_048_576)} MB`,
  );
  for (const { ms, request } of slowest.sort((a, b) => b.ms - a.ms).slice(0, 5))
    console.log(`  ${ms.toFixed(1)} ms ${request}`);
}
