import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Batch, PipelineSource } from '../../pipelines/engine/pipeline.js';
import { runPipeline } from '../../pipelines/engine/runner.js';
import { ingestFiles } from '../../pipelines/ingest.service.js';
import { getPipeline } from '../../pipelines/registry.js';
import { inboxSource } from '../../pipelines/sources/inbox.source.js';
import { CREATOR_COLUMNS } from '../fixtures/pipelines/files.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

// DuckDB's parallel CSV reader refuses a file whose quoted fields span lines when short rows are padded
// ("The parallel scanner does not support null_padding in conjunction with quoted new lines"): every
// creators CSV with a multi-line bio failed to load. The refusal comes from the reader's first sample
// or, when the first quoted line break lies past it, mid-read; both are built here.

let t: TestStore;

beforeAll(async () => {
  t = await createTestStore();
});
afterAll(async () => {
  await t.cleanup();
});

// A type, not an interface: rows read back from the store must have an index signature.
type QuotedCreator = { handle: string; display_name: string; bio: string };

/**
 * The name and bio of creator `i` of a file: most need quoting (commas, doubled quotes, LF and CRLF line
 * breaks, a blank line, a field that is only a quote, non-ASCII), some are plain. Rows up to `plainUntil` are all plain.
 */
function creatorText(prefix: string, i: number, plainUntil: number): QuotedCreator {
  const handle = `@${prefix}_${i}`;
  if (i <= plainUntil || i % 7 === 0) return { handle, display_name: `Creator ${i}`, bio: `Daily notes ${i}` };
  const names = [`Smith, Jo ${i}`, `The "Real" ${i}`, `Ana ${i}`, `"${i}"`];
  const bios = [
    `Travel, food & "good vibes" ${i}\n"DMs open", collabs: mail`, // a line starting with a quote: what the parallel reader refuses past its sample
    `Line one ${i}\r\nline two, with a comma\r\n"quoted" line three`,
    `He said ""hi"", twice, ${i}`,
    `"`,
    `Café, São Paulo ✨ ${i}\n\nblank line above`,
  ];
  return { handle, display_name: names[i % names.length] ?? '', bio: bios[i % bios.length] ?? '' };
}

/** RFC 4180 quoting, as a spreadsheet writes it: a field with a comma, quote or line break is quoted, quotes doubled. */
function field(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

function csvLine(c: QuotedCreator, i: number): string {
  return [
    'instagram',
    c.handle,
    field(c.display_name),
    field(c.bio),
    'tech',
    'US',
    field('Austin, TX'),
    'en',
    String(1000 + i),
    '10',
    '5',
    String(i % 11 === 0),
    '2026-11-01T00:00:00Z',
  ].join(',');
}

/**
 * Writes `rows` creators as a CSV (built in memory: a few MB) and answers its path and its rows; `first`
 * are raw lines written right after the header.
 */
function writeQuotedCsv(
  dir: string,
  name: string,
  prefix: string,
  rows: number,
  options: { plainUntil?: number; first?: string[] } = {},
): { path: string; creators: QuotedCreator[] } {
  const creators = Array.from({ length: rows }, (_, k) => creatorText(prefix, k + 1, options.plainUntil ?? 0));
  const lines = [CREATOR_COLUMNS.join(','), ...(options.first ?? []), ...creators.map((c, k) => csvLine(c, k + 1))];
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return { path, creators };
}

/** The stored name and bio of every creator whose handle starts with `@prefix_`, in handle order. */
async function storedText(prefix: string): Promise<QuotedCreator[]> {
  return t.store.all<QuotedCreator>(
    'SELECT handle, display_name, bio FROM creators WHERE starts_with(handle, ?) ORDER BY handle',
    [`@${prefix}_`],
  );
}

function byHandle(creators: readonly QuotedCreator[]): QuotedCreator[] {
  return [...creators].sort((a, b) => (a.handle < b.handle ? -1 : a.handle > b.handle ? 1 : 0));
}

type Fault = { handle: string; column_name: string | null; reason: string };

/** The faults of a run's quarantined rows, by handle and column. */
async function faultsOf(runId: string | undefined): Promise<Fault[]> {
  return t.store.all<Fault>(
    `SELECT json_extract_string(raw, '$.handle') AS handle, column_name, reason FROM quarantine WHERE run_id = ?
    ORDER BY handle, column_name NULLS FIRST`,
    [runId ?? ''],
  );
}

/** A source handing over all `batches` as one unit, as a remote-file source with several URLs does. */
function oneUnit(batches: Batch[]): PipelineSource {
  let given = false;
  return {
    kind: 'remote_file',
    next: async () => {
      if (given) return null;
      given = true;
      return { source: `files:${batches.length}`, batches, dedupeByChecksum: true };
    },
  };
}

describe('large CSV files with quoted commas, quotes and line breaks', () => {
  it('cds ingest loads 40,000 creators whose names and bios hold quoted commas, doubled quotes and line breaks, byte for byte', async () => {
    const { path, creators } = writeQuotedCsv(t.dir, 'creators-quoted.csv', 'q', 40_000);
    const [outcome] = await ingestFiles({ store: t.store, config: t.config }, [path]);
    expect(outcome?.runs[0]).toMatchObject({
      status: 'succeeded',
      rows_read: 40_000,
      rows_loaded: 40_000,
      rows_rejected: 0,
    });
    const stored = await storedText('q');
    expect(stored).toHaveLength(40_000);
    expect(stored).toEqual(byHandle(creators));
    expect(stored.filter((c) => c.bio.includes('\r\n')).length).toBeGreaterThan(5_000);
  });

  it("a file whose quoted line breaks start only past the reader's sample (refused mid-read) loads whole", async () => {
    // DuckDB samples the first 20,480 rows; the first quoted line break is in row 21,001.
    const { path, creators } = writeQuotedCsv(t.dir, 'creators-late-quotes.csv', 'late', 24_000, {
      plainUntil: 21_000,
    });
    const [outcome] = await ingestFiles({ store: t.store, config: t.config }, [path]);
    expect(outcome?.runs[0]).toMatchObject({ status: 'succeeded', rows_read: 24_000, rows_loaded: 24_000 });
    expect(await storedText('late')).toEqual(byHandle(creators));
  });

  it('the inbox loads such a file and moves it to done/', async () => {
    mkdirSync(t.config.inboxDir, { recursive: true });
    const { path, creators } = writeQuotedCsv(t.config.inboxDir, 'creators-inbox-quoted.csv', 'inbox', 5_000);
    const old = new Date(Date.now() - 3600_000);
    utimesSync(path, old, old);
    const outcome = await runPipeline({ store: t.store, config: t.config }, getPipeline('creators'), {
      source: inboxSource('creators'),
    });
    expect(outcome.runs.map((r) => [r.source, r.status, r.rows_loaded])).toEqual([
      ['inbox:creators-inbox-quoted.csv', 'succeeded', 5_000],
    ]);
    expect(await storedText('inbox')).toEqual(byHandle(creators));
    expect(
      readdirSync(join(t.config.inboxDir, 'done')).filter((f) => f.endsWith('creators-inbox-quoted.csv')),
    ).toHaveLength(1);
  });

  it('a run of several such files (a remote-file source with several URLs), each read inside the run transaction, loads them all', async () => {
    const a = writeQuotedCsv(t.dir, 'creators-multi-a.csv', 'multia', 5_000);
    const b = writeQuotedCsv(t.dir, 'creators-multi-b.csv', 'multib', 5_000);
    const outcome = await runPipeline({ store: t.store, config: t.config }, getPipeline('creators'), {
      source: oneUnit([
        { entity: 'creators', file: a.path, format: 'csv' },
        { entity: 'creators', file: b.path, format: 'csv' },
      ]),
    });
    expect(outcome.runs).toHaveLength(1);
    expect(outcome.runs[0]).toMatchObject({ status: 'succeeded', rows_read: 10_000, rows_loaded: 10_000 });
    expect(await storedText('multia')).toEqual(byHandle(a.creators));
    expect(await storedText('multib')).toEqual(byHandle(b.creators));
  });

  it('bad rows among quoted multi-line rows are still quarantined, with every fault, and the rest load', async () => {
    const bad = [
      'myspace,@qbad_platform,"Bad, platform","multi\nline",tech,US,,en,5,1,1,false,2026-11-01T00:00:00Z',
      'instagram,@qbad_short,"Short, row"',
      'instagram,@qbad_long,"Long",bio,tech,US,,en,5,1,1,false,2026-11-01T00:00:00Z,surplus',
      'instagram,@qbad_followers,"Many, ""many""","a\nb",tech,US,,en,lots,1,1,false,2026-11-01T00:00:00Z',
    ];
    const { path } = writeQuotedCsv(t.dir, 'creators-quoted-bad.csv', 'qbad', 2_000, { first: bad });
    const [outcome] = await ingestFiles({ store: t.store, config: t.config }, [path]);
    const run = outcome?.runs[0];
    expect(run).toMatchObject({ status: 'succeeded', rows_read: 2_004, rows_loaded: 2_000, rows_rejected: 4 });
    expect(await faultsOf(run?.run_id)).toEqual([
      { handle: '@qbad_followers', column_name: 'followers', reason: 'not a valid bigint' },
      { handle: '@qbad_long', column_name: null, reason: 'more fields than the header names' },
      { handle: '@qbad_platform', column_name: 'platform', reason: 'not a known platform' },
      { handle: '@qbad_short', column_name: 'followers', reason: 'is required' },
      { handle: '@qbad_short', column_name: 'niche', reason: 'is required' },
      { handle: '@qbad_short', column_name: 'updated_at', reason: 'is required' },
    ]);
    // A line counts records (docs/data-formats.md): the short row is record 3 though the bio before it spans two lines.
    const lines = await t.store.all(
      "SELECT DISTINCT line, json_extract_string(raw, '$.handle') AS handle FROM quarantine WHERE run_id = ? ORDER BY line",
      [run?.run_id ?? ''],
    );
    expect(lines).toEqual([
      { line: 2, handle: '@qbad_platform' },
      { line: 3, handle: '@qbad_short' },
      { line: 4, handle: '@qbad_long' },
      { line: 5, handle: '@qbad_followers' },
    ]);
    expect(
      await t.store.one('SELECT count(*)::INTEGER AS n FROM creators WHERE starts_with(handle, ?)', ['@qbad_']),
    ).toEqual({ n: 2_000 });
  });

  it('a quoted field never closed still fails the run (the reader cannot make out the file) and loads nothing', async () => {
    const { path } = writeQuotedCsv(t.dir, 'creators-unclosed.csv', 'unclosed', 2_000);
    writeFileSync(path, 'instagram,@unclosed_last,"Never closed,bio,tech,US,,en,5,1,1,false,2026-11-01T00:00:00Z\n', {
      flag: 'a',
    });
    const [outcome] = await ingestFiles({ store: t.store, config: t.config }, [path]);
    expect(outcome?.runs[0]).toMatchObject({ status: 'failed', rows_read: 0, rows_loaded: 0 });
    expect(outcome?.runs[0]?.error).toMatch(/^cannot read csv file: /);
    expect(await storedText('unclosed')).toEqual([]);
  });

  it('a file that is not a CSV still fails the run, naming the reason, and loads nothing', async () => {
    const path = join(t.dir, 'creators-garbage.csv');
    writeFileSync(path, 'this is not\u0000 a csv\n"unterminated,,\n');
    const [outcome] = await ingestFiles({ store: t.store, config: t.config }, [path]);
    expect(outcome?.runs[0]).toMatchObject({ status: 'failed', rows_loaded: 0 });
    expect(outcome?.runs[0]?.error).toMatch(/cannot read csv file|wrong header/);
  });
});
