import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CDS, cdsStartEnv } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';

let dir: string;
let dataDir: string;
let child: ChildProcess;
let url: string;
let key: string;

/** Runs `cds start` as an operator would, and reads the URL and demo key from its banner. */
async function startCds(): Promise<void> {
  child = spawn(process.execPath, [CDS, 'start'], {
    env: cdsStartEnv(dataDir, { CDS_DEMO: '1', CDS_DEMO_CREATORS: '100' }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  await new Promise<void>((ready, fail) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = /(http:\/\/127\.0\.0\.1:\d+)[\s\S]*Demo API key \(entry plan\): (\S+)/.exec(stderr);
      if (found) {
        [, url = '', key = ''] = found;
        ready();
      }
    });
    child.once('exit', (code) => fail(new Error(`cds start exited ${code}: ${stderr}`)));
  });
}

const modeOf = (path: string): number => statSync(path).mode & 0o777;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cds-modes-'));
  dataDir = join(dir, 'var');
  // what an older version left: a world-readable data folder
  mkdirSync(dataDir, { mode: 0o755 });
  await startCds();
}, 120_000);
afterAll(async () => {
  if (child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

async function exportOnce(): Promise<void> {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const res = await fetch(`${url}/v1/exports`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ source: 'search', format: 'csv' }),
  });
  expect(res.status).toBe(202);
  const { id } = (await res.json()) as { id: string };
  await eventually(
    async () => {
      const job = (await (await fetch(`${url}/v1/exports/${id}`, { headers })).json()) as { status: string };
      expect(job.status).not.toBe('failed');
      return job.status === 'succeeded';
    },
    20_000,
    'the export to finish',
  );
}

describe('files on disk', () => {
  it('after cds start and an export, the data folders are 0700 and the store, its WAL and the export files 0600', async () => {
    await exportOnce();
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(join(dataDir, 'exports'))).toBe(0o700);
    expect(modeOf(join(dataDir, 'inbox'))).toBe(0o700);
    const files = ['cds.duckdb', 'cds.duckdb.wal', 'demo-api-key', 'cursor-secret', 'secret-key']
      .map((f) => join(dataDir, f))
      .filter((f) => existsSync(f));
    expect(files).toContain(join(dataDir, 'cds.duckdb'));
    const exports = readdirSync(join(dataDir, 'exports')).map((f) => join(dataDir, 'exports', f));
    expect(exports.length).toBeGreaterThan(0);
    for (const file of [...files, ...exports]) expect([file, modeOf(file).toString(8)]).toEqual([file, '600']);
  });
});
