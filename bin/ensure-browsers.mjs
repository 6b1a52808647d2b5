#!/usr/bin/env node
// `npm test`'s pretest step: the console's browser tests drive Debian's Chromium and
// Firefox ESR (puppeteer-core downloads no browser of its own). Installs the missing
// ones with apt-get when this runs as root, as CI does; otherwise stops at once with
// the exact command to run. CHROMIUM_PATH / FIREFOX_PATH point at browsers elsewhere.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const onPath = (name) => spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim() || null;
const found = (envName, paths, names) =>
  (process.env[envName] && existsSync(process.env[envName])) ||
  paths.some((p) => existsSync(p)) ||
  names.some((n) => onPath(n) !== null);

const missing = [
  found('CHROMIUM_PATH', ['/usr/bin/chromium', '/usr/bin/chromium-browser'], ['chromium']) ? null : 'chromium',
  found('FIREFOX_PATH', ['/usr/bin/firefox-esr', '/usr/bin/firefox'], ['firefox-esr', 'firefox'])
    ? null
    : 'firefox-esr',
].filter(Boolean);

if (missing.length > 0) {
  const command = `apt-get install -y ${missing.join(' ')}`;
  if (process.getuid?.() === 0 && onPath('apt-get')) {
    process.stderr.write(
      `npm test: installing ${missing.join(' and ')} for the console's browser tests (${command})\n`,
    );
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    execFileSync('apt-get', ['install', '-y', '-qq', ...missing], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  } else {
    process.stderr.write(
      `npm test: the console's browser tests need Debian's ${missing.join(' and ')}, not installed here.\n` +
        `Install them, then run npm test again:\n  sudo ${command}\n`,
    );
    process.exit(1);
  }
}
