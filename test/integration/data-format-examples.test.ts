import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITY_NAMES, entityForFile } from '../../pipelines/entities/entity.js';
import { ENTITIES } from '../../pipelines/entities/source-entities.js';
import { ingestFiles } from '../../pipelines/ingest.service.js';
import { CAMPAIGN_COLUMNS, campaignRow, writeCsv } from '../fixtures/pipelines/files.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

const ROOT = join(import.meta.dirname, '../..');
const EXAMPLES = join(ROOT, 'examples');
const DOC = readFileSync(join(ROOT, 'docs/data-formats.md'), 'utf8');

let t: TestStore;
beforeAll(async () => {
  t = await createTestStore({ creators: 200 });
});
afterAll(async () => {
  await t.cleanup();
});

/** The example files in load order: creators first, as the rows of the others name them. */
function exampleFiles(): string[] {
  const files = readdirSync(EXAMPLES).filter((f) => entityForFile(f) !== null);
  return ENTITY_NAMES.map((entity) => {
    const file = files.find((f) => entityForFile(f) === entity);
    if (!file) throw new Error(`no example for ${entity}`);
    return join(EXAMPLES, file);
  });
}

function dataRows(file: string): number {
  return readFileSync(file, 'utf8').trim().split('\n').length - (file.endsWith('.csv') ? 1 : 0);
}

describe('the example files under examples/', () => {
  it('every entity has one, and cds ingest loads each as is into a demo store: every row loaded, none rejected', async () => {
    const files = exampleFiles();
    const outcomes = await ingestFiles({ store: t.store, config: t.config }, files, null);
    expect(outcomes.map((o) => o.pipeline)).toEqual([
      'creators',
      'follower-history',
      'posts',
      'creator-contacts',
      'linked-accounts',
      'audience',
      'campaigns',
      'campaign-creators',
      'campaign-metrics',
      'follower-samples',
    ]);
    for (const [i, outcome] of outcomes.entries()) {
      const rows = dataRows(files[i] ?? '');
      expect(outcome.runs, files[i]).toEqual([
        expect.objectContaining({ status: 'succeeded', rows_read: rows, rows_loaded: rows, rows_rejected: 0 }),
      ]);
    }
    expect(await t.store.all(`SELECT reason FROM quarantine`)).toEqual([]);
  });

  it('the example campaigns name their account by name ("demo"), stored as the account\'s id', async () => {
    const rows = await t.store.all<{ account_id: string; currency: string }>(
      `SELECT account_id, currency FROM campaigns WHERE campaign_id LIKE 'cmp_example_%' ORDER BY campaign_id`,
    );
    expect(rows).toEqual([
      { account_id: t.demoAccountId, currency: 'EUR' },
      { account_id: t.demoAccountId, currency: 'USD' },
    ]);
  });

  it('a campaign naming an account that is neither an id nor a name is rejected as an unknown account', async () => {
    const file = writeCsv(t.dir, 'campaigns-unknown-account.csv', CAMPAIGN_COLUMNS, [
      campaignRow({ campaign_id: 'cmp_nobody', account_id: 'nobody', name: 'Nobody', status: 'draft' }),
    ]);
    const [outcome] = await ingestFiles({ store: t.store, config: t.config }, [file], null);
    expect(outcome?.runs[0]).toMatchObject({ rows_loaded: 0, rows_rejected: 1 });
    expect(await t.store.all(`SELECT column_name, reason FROM quarantine WHERE file = ?`, [file])).toEqual([
      { column_name: 'account_id', reason: 'unknown account nobody' },
    ]);
  });
});

/** The rows of the column table under `### <entity>` in docs/data-formats.md: name, type, required. */
function documentedColumns(entity: string): Array<{ name: string; type: string; required: boolean }> {
  const section = DOC.split(/^### /m).find((s) => s.startsWith(`\`${entity}\``)) ?? '';
  return section
    .split('\n')
    .filter((l) => /^\| `[a-z_]+` \|/.test(l))
    .map((l) => {
      const cells = l.split('|').map((c) => c.trim());
      return { name: (cells[1] ?? '').replaceAll('`', ''), type: cells[2] ?? '', required: cells[3] === 'yes' };
    });
}

describe('docs/data-formats.md', () => {
  it.each(ENTITY_NAMES)('lists every column of %s with the type and requiredness the validator enforces', (entity) => {
    const expected = ENTITIES[entity].columns.map((c) => ({
      name: c.name,
      type: c.type,
      required: c.required === true,
    }));
    expect(documentedColumns(entity)).toEqual(expected);
  });
});
