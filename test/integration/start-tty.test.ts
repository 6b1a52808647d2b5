import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { CDS, cdsStartEnv } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'cds-tty-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What a terminal shows, line by line: escape codes dropped, each carriage-return redraw a line of its own. */
function screenLines(raw: string): string[] {
  return raw
    .replace(/\x1b\[[0-9;]*[A-Za-z]/g, '')
    .split(/\r\n|\n|\r/)
    .filter((line) => line.trim().length > 0);
}

/**
 * Runs `npm start`'s command under a pseudo-terminal (util-linux `script`), as a
 * person at a terminal would, and answers everything shown until the ready
 * banner, then everything shown after it: a request, then Ctrl+C and the stop,
 * so a line the request printed is in it whenever it came.
 */
async function startOnTerminal(): Promise<{ beforeBanner: string[]; afterRequest: string[] }> {
  const child = spawn(
    'script',
    ['-qfec', `${JSON.stringify(process.execPath)} ${JSON.stringify(CDS)} start`, '/dev/null'],
    {
      env: cdsStartEnv(join(dir, 'var'), {
        CDS_DEMO_CREATORS: '200',
        CDS_LOG_LEVEL: 'info',
        CDS_LOG_FORMAT: '',
        NODE_ENV: '',
      }),
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let shown = '';
  child.stdout.on('data', (chunk: Buffer) => {
    shown += chunk.toString();
  });
  // 'close' comes after the last output was read, 'exit' may come before
  const closed = new Promise((r) => child.once('close', r));
  let banner = '';
  try {
    banner = await new Promise<string>((ready, fail) => {
      const check = setInterval(() => {
        if (shown.includes('Press Ctrl+C to stop.')) ready(shown);
      }, 100);
      child.once('exit', (code) => {
        clearInterval(check);
        fail(new Error(`cds start exited ${code}: ${shown}`));
      });
    });
    const url = /ready at (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1] ?? '';
    await (await fetch(`${url}/healthz`)).text();
  } finally {
    child.stdin.write('\x03');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await closed;
    clearTimeout(timer);
  }
  const before = banner.slice(0, banner.indexOf('Creator Data Service is ready'));
  return { beforeBanner: screenLines(before), afterRequest: screenLines(shown.slice(banner.length)) };
}

it('npm start on a terminal prints readable lines, none glued to the seed progress and no JSON before the ready banner; no line per request at info', async () => {
  const { beforeBanner, afterRequest } = await startOnTerminal();
  expect(beforeBanner.some((line) => line.includes('seeding demo data'))).toBe(true);
  expect(beforeBanner.filter((line) => line.trimStart().startsWith('{'))).toEqual([]);
  const started = beforeBanner.find((line) => line.includes('service started'));
  expect(started).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}service started url=http/);
  // what follows the banner runs to the stop, so a request line would be in it
  expect(afterRequest.some((line) => line.includes('service stopped'))).toBe(true);
  expect(afterRequest.filter((line) => /request|healthz/.test(line))).toEqual([]);
}, 120_000);
