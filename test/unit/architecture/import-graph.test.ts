import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
/** Folders that are not source: dependencies, runtime data, build output. */
const SKIP = new Set(['node_modules', 'var', 'dist', 'coverage']);
/** Static imports and re-exports, type-only ones included (a type import is a dependency too); `import()` is left out: it is how code loads something lazily. */
const IMPORT = /^\s*(?:import|export)\s[^'";]*?from\s+['"](\.[^'"]+)['"]|^\s*import\s+['"](\.[^'"]+)['"]/gm;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || SKIP.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every source file (relative to the root) and the source files it imports. */
function importGraph(): Map<string, string[]> {
  const files = sourceFiles(ROOT);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = [...readFileSync(file, 'utf8').matchAll(IMPORT)]
      .map((m) => resolve(dirname(file), m[1] ?? m[2] ?? ''))
      .map((target) => (known.has(target) ? target : target.replace(/\.js$/, '.ts')))
      .filter((target) => known.has(target));
    graph.set(
      relative(ROOT, file),
      targets.map((t) => relative(ROOT, t)),
    );
  }
  return graph;
}

/** The groups of files that import one another in a ring (Tarjan's strongly connected components of more than one file, or a self-import). */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string): void => {
    order.set(file, order.size);
    low.set(file, order.get(file) ?? 0);
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!order.has(next)) visit(next);
      if (stack.includes(next)) low.set(file, Math.min(low.get(file) ?? 0, low.get(next) ?? 0));
    }
    if (low.get(file) !== order.get(file)) return;
    const ring = stack.splice(stack.indexOf(file));
    if (ring.length > 1 || graph.get(file)?.includes(file)) found.push(ring.sort());
  };
  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return found;
}

/** Imports from files under `from` into files under any of `into`, as `a -> b`. */
function crossings(graph: ReadonlyMap<string, readonly string[]>, from: string, into: readonly string[]): string[] {
  return [...graph]
    .filter(([file]) => file.startsWith(`${from}/`))
    .flatMap(([file, targets]) =>
      targets.filter((t) => into.some((dir) => t.startsWith(`${dir}/`))).map((t) => `${file} -> ${t}`),
    );
}

describe('the import graph of the source tree', () => {
  const graph = importGraph();

  it('has no import cycles: dependencies point one way', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(cycles(graph)).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    expect(
      cycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', ['c.ts']],
          ['c.ts', ['a.ts']],
          ['d.ts', ['a.ts']],
        ]),
      ),
    ).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('keeps the layers: nothing below the server imports server/ or cli/, and data/ imports no pipeline or connector', () => {
    for (const layer of ['data', 'pipelines', 'connectors', 'config'])
      expect(crossings(graph, layer, ['server', 'cli'])).toEqual([]);
    expect(crossings(graph, 'data', ['pipelines', 'connectors'])).toEqual([]);
    expect(crossings(graph, 'server', ['cli'])).toEqual([]);
  });

  it('keeps the engine of the service state behind data/state/: product code asks StateSql, never `.dialect`', () => {
    const product = ['core', 'config', 'data', 'pipelines', 'connectors', 'server', 'cli'];
    const asking = [...graph.keys()].filter(
      (file) =>
        product.some((dir) => file.startsWith(`${dir}/`)) &&
        !file.startsWith('data/state/') &&
        /\.dialect\b/.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    expect(asking).toEqual([]);
  });

  it('keeps the demo world out of the product: only data/seed/ reads its name lists and weights', () => {
    const product = ['core', 'config', 'data', 'pipelines', 'connectors', 'server', 'cli'];
    const readers = [...graph]
      .filter(([file]) => product.some((dir) => file.startsWith(`${dir}/`)) && !file.startsWith('data/seed/'))
      .filter(([, targets]) => targets.includes('data/seed/reference-data.ts'))
      .map(([file]) => file);
    expect(readers).toEqual([]);
  });

  it('keeps core/ at the bottom: it imports nothing of the repository outside itself', () => {
    const outside = ['config', 'data', 'pipelines', 'connectors', 'server', 'cli', 'bench', 'tools', 'test'];
    expect(crossings(graph, 'core', outside)).toEqual([]);
  });

  it('keeps product code off test, bench and tool code, and bench and tools off each other', () => {
    for (const layer of ['core', 'config', 'data', 'pipelines', 'connectors', 'server', 'cli'])
      expect(crossings(graph, layer, ['test', 'bench', 'tools'])).toEqual([]);
    expect(crossings(graph, 'bench', ['tools'])).toEqual([]);
    expect(crossings(graph, 'tools', ['bench'])).toEqual([]);
  });
});
