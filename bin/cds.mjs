#!/usr/bin/env node
// Runs the CLI from its bundle, dist/cds.mjs, rebuilt first when a source file changed
// (bin/bundle.mjs), so `npx cds …` and `npm start` work in a checkout with no build step.
// main() is called here, not left to the module: through npx's `.bin/cds` symlink the
// script's own path does not end in `cds.mjs`, so a path check in the module would not fire.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { bundle, ROOT } from './bundle.mjs';

const { main } = await import(await entry());
process.exitCode = await main(process.argv.slice(2), process.env);

/** The bundle's URL; the TypeScript itself through tsx when the bundle cannot be written (a read-only checkout). */
async function entry() {
  try {
    return pathToFileURL(await bundle('cli/cds.ts', join(ROOT, 'dist/cds.mjs'))).href;
  } catch (error) {
    if (!['EACCES', 'EPERM', 'EROFS'].includes(error?.code)) throw error;
    const { register } = await import('tsx/esm/api');
    register();
    return pathToFileURL(join(ROOT, 'cli/cds.ts')).href;
  }
}
