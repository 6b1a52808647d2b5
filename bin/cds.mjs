#!/usr/bin/env node
// Runs the TypeScript CLI through tsx so `npx cds …` works in a checkout with no build step.
// main() is called here, not left to the module: through npx's `.bin/cds` symlink the
// script's own path does not end in `cds.mjs`, so a path check in the module would not fire.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/cds.ts');
process.exitCode = await main(process.argv.slice(2), process.env);
