import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAN_LIMITS } from '../../data/plans/plans.js';
import { runCliInProcess, type CliResult } from '../helpers/cli.js';

let dir: string;

/**
 * `cds` in this file's own data folder, run in this process (a process per
 * command would cost seconds each). No server runs, so each command opens the store itself.
 */
function cds(...args: string[]): Promise<CliResult> {
  return runCliInProcess(args, { CDS_DATA_DIR: dir, CDS_LOG_LEVEL: 'silent', CDS_DEMO: '0' });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cds-plans-cli-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface PlanJson {
  name: string;
  limits: Record<string, number | null>;
  scopes: string[];
}

describe('cds plans and accounts', () => {
  it('plans list shows the table seeded from the default limits; plans set changes one limit and keeps the others', async () => {
    const listed = await cds('plans', 'list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    const plans = JSON.parse(listed.stdout) as PlanJson[];
    expect(plans.map((p) => p.name)).toEqual(['free', 'entry', 'enterprise']);
    expect(plans[1]?.limits).toMatchObject({
      requests_per_minute: PLAN_LIMITS.entry.requestsPerMinute,
      lists: PLAN_LIMITS.entry.lists,
    });
    expect(plans[0]?.scopes).toEqual([]);
    const set = await cds('plans', 'set', 'entry', '--requests-per-minute', '240', '--json');
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({
      name: 'entry',
      limits: { requests_per_minute: 240, export_rows: PLAN_LIMITS.entry.exportRows },
    });
    const table = await cds('plans', 'list');
    expect(table.stdout).toMatch(/^entry\s+240\s/m);
  });

  it('keys create on an existing account keeps its plan: a different --plan is refused and points to accounts set-plan', async () => {
    const first = await cds('keys', 'create', '--account', 'acme', '--plan', 'entry', '--json');
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ plan: 'entry', owner: true, account_created: true });
    const refused = await cds('keys', 'create', '--account', 'acme', '--plan', 'enterprise');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/acme is on plan entry.*cds accounts set-plan acme enterprise/);
    const second = await cds('keys', 'create', '--account', 'acme', '--json');
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ plan: 'entry', owner: false, account_created: false });
  });

  it('accounts set-plan moves an account; an unknown plan is a usage mistake (exit 2) naming the plans', async () => {
    const moved = await cds('accounts', 'set-plan', 'acme', 'enterprise', '--json');
    expect(moved.code, moved.stderr).toBe(0);
    expect(JSON.parse(moved.stdout)).toMatchObject({
      name: 'acme',
      plan: 'enterprise',
      previous_plan: 'entry',
      active_keys: 2,
    });
    const unknown = await cds('accounts', 'set-plan', 'acme', 'gold');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /--plan must be one of free, entry, enterprise, not gold\nusage: cds accounts set-plan/,
    );
    const noAccount = await cds('accounts', 'set-plan', 'nobody', 'entry');
    expect(noAccount.code).toBe(1);
    const accounts = await cds('accounts', 'list', '--json');
    expect(JSON.parse(accounts.stdout)).toEqual([
      expect.objectContaining({ name: 'acme', plan: 'enterprise', active_keys: 2 }),
    ]);
  });
});
