import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPipeline } from '../../pipelines/engine/runner.js';
import { ingestFiles } from '../../pipelines/ingest.service.js';
import { getPipeline } from '../../pipelines/registry.js';
import { inboxSource } from '../../pipelines/sources/inbox.source.js';
import { CREATOR_COLUMNS, creatorRow, writeCsv } from '../fixtures/pipelines/files.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

let t: TestStore;

beforeAll(async () => {
  t = await createTestStore();
});
afterAll(async () => {
  await t.cleanup();
});

function writeNdjson(dir: string, name: string, handles: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, handles.map((handle) => JSON.stringify(creatorRow({ handle }))).join('\n') + '\n');
  return path;
}

async function handlesLoaded(prefix: string): Promise<string[]> {
  const rows = await t.store.all<{ handle: string }>(
    'SELECT handle FROM creators WHERE handle LIKE ? ORDER BY handle',
    [`${prefix}%`],
  );
  return rows.map((r) => r.handle);
}

describe('ingest file names are taken literally, never as globs', () => {
  it('a file literally named creators-*.ndjson is read alone, not with creators-secret.ndjson beside it', async () => {
    const dir = join(t.dir, 'star');
    mkdirSync(dir);
    const star = writeNdjson(dir, 'creators-*.ndjson', ['@star_only']);
    writeNdjson(dir, 'creators-secret.ndjson', ['@star_secret']);
    const [outcome] = await ingestFiles({ store: t.store, config: t.config }, [star]);
    expect(outcome?.runs[0]).toMatchObject({ status: 'succeeded', rows_read: 1, rows_loaded: 1 });
    expect(await handlesLoaded('@star_')).toEqual(['@star_only']);
  });

  it('a name with ? and […] (creators-[ab]?.csv) reads that file, not the files its pattern matches', async () => {
    const dir = join(t.dir, 'brackets');
    mkdirSync(dir);
    const odd = writeCsv(dir, 'creators-[ab]?.csv', CREATOR_COLUMNS, [creatorRow({ handle: '@bracket_only' })]);
    writeCsv(dir, 'creators-a1.csv', CREATOR_COLUMNS, [creatorRow({ handle: '@bracket_a1' })]);
    const [outcome] = await ingestFiles({ store: t.store, config: t.config }, [odd]);
    expect(outcome?.runs[0]).toMatchObject({ status: 'succeeded', rows_read: 1 });
    expect(await handlesLoaded('@bracket_')).toEqual(['@bracket_only']);
  });

  it('an inbox file named with a glob character loads only its own rows; a failure names the file, not a temp path', async () => {
    mkdirSync(t.config.inboxDir, { recursive: true });
    const old = new Date(Date.now() - 3600_000);
    const star = writeNdjson(t.config.inboxDir, 'creators-*.ndjson', ['@inbox_star']);
    const bad = join(t.config.inboxDir, 'creators-*-bad.ndjson');
    writeFileSync(bad, '{"platform": not json\n');
    for (const path of [star, bad]) utimesSync(path, old, old);
    // Matches the glob but is too fresh for the inbox to pick up itself: only a glob read would load it.
    writeNdjson(t.config.inboxDir, 'creators-neighbour.ndjson', ['@inbox_neighbour']);
    const outcome = await runPipeline({ store: t.store, config: t.config }, getPipeline('creators'), {
      source: inboxSource('creators', { settleMs: 600_000 }),
    });
    expect(outcome.runs.map((r) => [r.source, r.status, r.rows_read]).sort()).toEqual([
      ['inbox:creators-*-bad.ndjson', 'failed', 0],
      ['inbox:creators-*.ndjson', 'succeeded', 1],
    ]);
    const failed = outcome.runs.find((r) => r.status === 'failed');
    expect(failed?.error).toContain(bad);
    expect(failed?.error).not.toMatch(/cds-read-/);
    expect(await handlesLoaded('@inbox_')).toEqual(['@inbox_star']);
  });
});
