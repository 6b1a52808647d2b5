import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../config/config.js';

/** One built file of the console, held in memory. */
export interface ConsoleAsset {
  type: string;
  body: Buffer;
}

// from the project root, not this module's URL: the service also runs bundled into dist/ (bin/bundle.mjs)
const CLIENT_ENTRY = join(PROJECT_ROOT, 'server/console/client/main.ts');
const STYLESHEET = join(PROJECT_ROOT, 'server/console/console.css');

let built: Promise<ReadonlyMap<string, ConsoleAsset>> | null = null;

/**
 * The console's files by name: the browser code bundled by esbuild (TypeScript and
 * Chart.js into one ES module) and the stylesheet. Built once per process on first
 * use, in memory, so `npm start` needs no separate build step and a test gets the
 * code as it is in the tree. A failed build is not cached: the next request retries.
 */
export function consoleAssets(): Promise<ReadonlyMap<string, ConsoleAsset>> {
  built ??= buildAssets().catch((error: unknown) => {
    built = null;
    throw error;
  });
  return built;
}

async function buildAssets(): Promise<ReadonlyMap<string, ConsoleAsset>> {
  // esbuild is loaded only when the console is first asked for: API-only processes never start its service
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [CLIENT_ENTRY],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome120', 'firefox120'],
    minify: true,
    write: false,
    outfile: 'console.js',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const [script] = result.outputFiles;
  if (!script) throw new Error('esbuild produced no console bundle');
  return new Map([
    ['console.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(script.contents) }],
    ['console.css', { type: 'text/css; charset=utf-8', body: await readFile(STYLESHEET) }],
  ]);
}
