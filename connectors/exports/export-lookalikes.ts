import type { DuckDBConnection } from '@duckdb/node-api';
import { VARCHAR, LIST } from '@duckdb/node-api';
import type { CreatorSearchService } from '../../data/creators/creator-search.service.js';
import { findLookalikes } from '../../data/creators/lookalike.service.js';
import type { LookalikeKeyset } from '../../data/creators/search-index/lookalike-search.js';
import { ValidationError } from '../../data/errors.js';
import type { StateDb, StateQueryable } from '../../data/state/state-db.js';
import type { Store } from '../../data/store.js';
import type { ExportSource } from './export.config.js';
import { parseSearchFilters, searchContextFor, type ParsedSearch } from './export-filters.js';

/** One ranked match as the export stores it: the creator by platform and handle, its similarity and reasons. */
export interface StoredMatch {
  platform: string;
  handle: string;
  similarity: number;
  reasons: Array<{ kind: string; detail: string }>;
}

type LookalikeSource = Extract<ExportSource, { type: 'lookalikes' }>;

/** Matches ranked per call of the lookalike service while an export's are taken. */
const PAGE = 1_000;

/**
 * The lookalike export's filters read as the lookalikes endpoint reads them: every
 * search parameter but `platform` (the creator's own) and `sort` (matches rank by
 * similarity); a refused one is a 400 naming `filters.<name>`.
 */
export function parseLookalikeFilters(filters: Record<string, string>): ParsedSearch {
  const named = (['platform', 'sort'] as const).filter((k) => k in filters);
  if (named.length > 0) {
    throw new ValidationError(
      `invalid filters: ${named.map((k) => `filters.${k}`).join(', ')} cannot narrow lookalikes`,
      named.map((k) => ({
        field: `filters.${k}`,
        message:
          k === 'platform'
            ? 'names the creator: give it as the top-level platform'
            : 'matches are ranked by similarity',
      })),
      'body',
    );
  }
  return parseSearchFilters(filters);
}

/**
 * The source's ranked matches, most similar first, from the search index through
 * the lookalike service (docs/lookalikes.md): an unknown creator is its 404, an
 * ambiguous handle its 409, an index being built its 503. Taken when the job is
 * created, so the file holds the ranking the caller asked for, whichever process
 * writes it.
 */
export async function rankLookalikeMatches(
  store: Store,
  state: StateQueryable,
  search: CreatorSearchService,
  source: LookalikeSource,
  accountId: string,
  now: number,
): Promise<StoredMatch[]> {
  const parsed = parseLookalikeFilters(source.filters);
  const filters = parsed.filters;
  // the excluded lists are checked as an export's (a 400 naming filters.exclude_list), before the service reads them
  await searchContextFor(state, accountId, parsed, now);
  const matches: StoredMatch[] = [];
  let after: LookalikeKeyset | null = null;
  while (matches.length < source.limit) {
    const page = await findLookalikes(store, search, {
      handle: source.handle,
      platform: source.platform,
      basis: source.basis,
      filters,
      after,
      limit: Math.min(PAGE, source.limit - matches.length),
      accountId,
    });
    for (const m of page.creators)
      matches.push({ platform: m.platform, handle: m.handle, similarity: m.similarity, reasons: m.reasons });
    if (!page.next) break;
    after = page.next;
  }
  return matches;
}

/** Records an export's matches beside its job (same transaction as the job's insert). */
export async function insertMatches(
  tx: StateQueryable,
  exportId: string,
  matches: readonly StoredMatch[],
): Promise<void> {
  await tx.run('INSERT INTO export_matches (export_id, matches) VALUES (?, ?)', [exportId, JSON.stringify(matches)]);
}

/** An export's matches (none when they were removed, or the job is another account's). */
export async function readMatches(state: StateDb, accountId: string, exportId: string): Promise<StoredMatch[]> {
  const row = await state.one<{ matches: string }>(
    `SELECT matches FROM export_matches
    WHERE export_id IN (SELECT export_id FROM exports WHERE export_id = ? AND account_id = ?)`,
    [exportId, accountId],
  );
  return row ? (JSON.parse(row.matches) as StoredMatch[]) : [];
}

/** Removes a finished job's matches: its file holds them now, or it failed for good. */
export async function deleteMatches(tx: StateQueryable, exportId: string): Promise<void> {
  await tx.run('DELETE FROM export_matches WHERE export_id = ?', [exportId]);
}

/** The temp table a lookalikes export reads its matches from, on the connection that runs the export. */
export const MATCHES_SCOPE = 'export_lookalike_matches';

/** Loads the matches, ranked from 1, into MATCHES_SCOPE on `connection` (created by the caller). */
export async function appendMatches(connection: DuckDBConnection, matches: readonly StoredMatch[]): Promise<void> {
  const appender = await connection.createAppender(MATCHES_SCOPE, 'main', 'temp');
  try {
    matches.forEach((m, i) => {
      appender.appendInteger(i + 1);
      appender.appendVarchar(m.platform);
      appender.appendVarchar(m.handle);
      appender.appendDouble(m.similarity);
      appender.appendList(
        m.reasons.map((r) => r.detail),
        LIST(VARCHAR),
      );
      appender.appendList(
        m.reasons.map((r) => r.kind),
        LIST(VARCHAR),
      );
      appender.endRow();
    });
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
}

/** The DDL of MATCHES_SCOPE. */
export const MATCHES_TABLE_SQL = `CREATE OR REPLACE TEMP TABLE ${MATCHES_SCOPE} (
  rank INTEGER NOT NULL, platform VARCHAR NOT NULL, handle VARCHAR NOT NULL, similarity DOUBLE NOT NULL,
  reasons VARCHAR[] NOT NULL, reason_kinds VARCHAR[] NOT NULL)`;
