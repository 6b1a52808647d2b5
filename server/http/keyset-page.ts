import type { KeyedPage } from '../../data/paging.js';
import { invalidCursor, type CursorCodec } from './cursor.js';

/** The type of one value of a keyset, checked when a cursor is read back. */
export type KeyPart = 'string' | 'number';

/** The keyset a shape describes: `['string', 'number']` → `[string, number]`. */
export type KeyOf<S extends readonly KeyPart[]> = { -readonly [I in keyof S]: S[I] extends 'string' ? string : number };

/** The keyset of collections ordered by their id alone. */
export const ID_KEY = ['string'] as const;

/** Where a page starts and how large it is: the `limit` and `cursor` query parameters (server/http/pagination.ts). */
export interface PageQuery {
  limit: number;
  cursor?: string | undefined;
}

/**
 * What a collection's cursors carry: `scope` (endpoint, caller and every
 * parameter that changes the rows, e.g. `lists:acct_1` or a `fingerprint` of
 * the filters) and the `shape` of its keyset.
 */
export interface Keyset<S extends readonly KeyPart[]> {
  scope: string;
  shape: S;
}

/** A collection page as the API sends it: the fetched page's members with `next` as an opaque `next_cursor`. */
export type CursorPage<P> = Omit<P, 'next'> & { next_cursor: string | null };

/**
 * One page of a keyset-paged collection. Reads the keyset out of `query.cursor`
 * (a cursor of another endpoint, caller, filter set or shape, a forged or a
 * malformed one is one 400 `invalid_parameter` naming `cursor`), calls `fetch`
 * for `query.limit` items after it (null: the first page), and signs the key
 * `fetch` says the next page starts after as `next_cursor`. `fetch` answers a
 * `KeyedPage` (`takePage` builds one from a `limit + 1` row read) and may carry
 * more members (e.g. the search's `results`), which are passed through.
 *
 * Cursors are `CursorCodec` tokens of `{ s: scope, v: keyset }`: a scope and a
 * shape kept the same keep the cursors already handed out valid.
 */
export async function keysetPage<S extends readonly KeyPart[], P extends KeyedPage<unknown, Readonly<KeyOf<S>>>>(
  cursors: CursorCodec,
  query: PageQuery,
  keyset: Keyset<S>,
  fetch: (after: KeyOf<S> | null, limit: number) => Promise<P>,
): Promise<CursorPage<P>> {
  const after = query.cursor === undefined ? null : readKey(cursors, keyset, query.cursor);
  const { next, ...page } = await fetch(after, query.limit);
  return { ...page, next_cursor: next === null ? null : cursors.encode(keyset.scope, next) };
}

function readKey<S extends readonly KeyPart[]>(cursors: CursorCodec, keyset: Keyset<S>, cursor: string): KeyOf<S> {
  const values = cursors.decode(keyset.scope, cursor);
  const fits = values.length === keyset.shape.length && keyset.shape.every((type, i) => typeof values[i] === type);
  if (!fits) throw invalidCursor();
  return values as unknown as KeyOf<S>;
}
