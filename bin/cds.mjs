#!/usr/bin/env node
// Runs the CLI from its bundle, dist/cds.mjs, rebuilt first when a source file changed
// (bin/bundle.mjs), so `npx cds …` and `npm start` work in a checkout with no build step.
// main() is called here, not left to the module: through npx's `.bin/cds` symlink the
// script's own path does not end in `cds.mjs`, so a path check in the module would not fire.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { bundle, ROOT } from './bundle.mjs';

const file = await bundle('cli/cds.ts', join(ROOT, 'dist/cds.mjs'));
const { main } = await import(pathToFileURL(file).href);
process.exitCode = await main(process.argv.slice(2), process.env);
