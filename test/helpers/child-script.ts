import { basename, join } from 'node:path';
import { bundle, ROOT } from '../../bin/bundle.mjs';

/**
 * The file `node` runs for a test's child process script (`entry`, a TypeScript file from the
 * project root): the script bundled as the CLI is (bin/bundle.mjs, rebuilt when a source or test
 * file changed), so the child starts on plain `node` instead of compiling the service through tsx,
 * which costs each child about 0.7 s more CPU. The bundle lies directly under dist/, as the CLI's
 * does: the service finds the project root one folder up from its own code (config/config.ts).
 */
export function childScript(entry: string): Promise<string> {
  const name = basename(entry)
    .replace(/\.ts$/, '')
    .replace(/[^A-Za-z0-9-]/g, '-');
  return bundle(entry, join(ROOT, 'dist', `test-${name}.mjs`), ['test']);
}
