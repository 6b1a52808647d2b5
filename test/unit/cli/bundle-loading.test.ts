import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { bundle, ROOT } from '../../../bin/bundle.mjs';

/**
 * What loading `file` loads before any of its code runs: the packages it and the chunks it
 * imports name in `import … from` (not `import()`), followed through those chunks.
 */
function staticPackages(file: string, seen = new Set<string>()): Set<string> {
  const packages = new Set<string>();
  if (seen.has(file)) return packages;
  seen.add(file);
  for (const [, spec = ''] of readFileSync(file, 'utf8').matchAll(/\bimport\s*(?:[\w$*{}\s,]+from\s*)?"([^"]+)"/g)) {
    if (spec.startsWith('.')) for (const p of staticPackages(resolve(dirname(file), spec), seen)) packages.add(p);
    else if (!spec.startsWith('node:')) packages.add(spec);
  }
  return packages;
}

it('a cds process loads the store, the service and their packages only for the commands that use them', async () => {
  // every `cds` process starts here (bin/cds.mjs): --help, a usage mistake or a command the running server
  // answers must not pay for loading DuckDB, Koa, Arrow and the rest (about 1.2 s of CPU each)
  const entry = await bundle('cli/cds.ts', join(ROOT, 'dist/cds.mjs'));
  const loaded = staticPackages(entry);
  expect(loaded).toContain('zod'); // the configuration is read by every command
  for (const heavy of [
    '@duckdb/node-api',
    'koa',
    '@koa/router',
    'apache-arrow',
    'pg',
    'pino',
    'esbuild',
    'prom-client',
  ])
    expect(loaded, heavy).not.toContain(heavy);
  // and the service is there, in a chunk `cds start` imports when it runs
  const chunks = [...readFileSync(entry, 'utf8').matchAll(/\bimport\("(\.[^"]+)"\)/g)].map((m) => m[1] ?? '');
  const lazy = new Set(chunks.flatMap((c) => [...staticPackages(resolve(dirname(entry), c))]));
  expect(lazy).toContain('@duckdb/node-api');
  expect(lazy).toContain('koa');
});
