import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

let t: TestStore;

beforeAll(async () => {
  // a seeded store (its market history holds the campaign prices), closed so the CLI process opens it
  t = await createTestStore({ creators: 1500 });
  await t.store.close();
});
afterAll(async () => {
  await t?.cleanup().catch(() => undefined);
});

function cds(...args: string[]): Promise<CliResult> {
  return runCli(args, {
    cwd: t.dir,
    env: { ...process.env, CDS_DATA_DIR: t.dir, CDS_DEMO: '0', CDS_LOG_LEVEL: 'silent' },
  });
}

interface HeldOut {
  n: number;
  mdape: number;
  coverage: number;
}

it('cds pricing eval prints MdAPE and the share inside low–high for both bases; --json the same figures', {
  timeout: 120_000,
}, async () => {
  const json = await cds('pricing', 'eval', '--json');
  expect(json.code, json.stderr).toBe(0);
  const r = JSON.parse(json.stdout) as {
    observations: number;
    active_model: string;
    campaigns: HeldOut;
    peers: HeldOut;
  };
  expect(r.active_model).toBe('price-1.1');
  for (const h of [r.campaigns, r.peers]) {
    expect(h.n).toBeGreaterThan(50);
    expect(h.mdape).toBeGreaterThan(0);
    expect(h.mdape).toBeLessThan(0.5);
    expect(h.coverage).toBeGreaterThanOrEqual(0.7);
  }
  const text = await cds('pricing', 'eval');
  expect(text.code).toBe(0);
  const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;
  expect(text.stdout).toContain(`${r.observations.toLocaleString('en-US')} campaign prices`);
  expect(text.stdout).toMatch(
    new RegExp(
      `campaign-based.*MdAPE of mid +${pct(r.campaigns.mdape)} +inside low–high +${pct(r.campaigns.coverage)}`,
    ),
  );
  expect(text.stdout).toMatch(
    new RegExp(`peer-based.*MdAPE of mid +${pct(r.peers.mdape)} +inside low–high +${pct(r.peers.coverage)}`),
  );

  const fit = await cds('pricing', 'fit', '--json');
  expect(fit.code, fit.stderr).toBe(0);
  expect(JSON.parse(fit.stdout)).toMatchObject({ version: 'price-1.2', estimates: 1500 * 6 });
  expect((await cds('pricing', 'eval', '--nope')).code).toBe(2);
});

it('on a store without campaign prices, cds pricing eval says what a model needs and exits 1', {
  timeout: 60_000,
}, async () => {
  const empty = mkdtempSync(join(tmpdir(), 'cds-cli-pricing-empty-'));
  try {
    const r = await runCli(['pricing', 'eval'], {
      cwd: empty,
      env: { ...process.env, CDS_DATA_DIR: empty, CDS_DEMO: '0', CDS_LOG_LEVEL: 'silent' },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/holds 0 campaign prices; a price model needs at least 50/);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});
