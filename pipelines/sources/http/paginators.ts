import type { SourcePaginator } from '../config/sources-schema.js';
import { describeUrl, TerminalSourceError } from './http-request.js';
import { readPath } from './record-mapping.js';

/** What a paginator sees of one answered page. */
export interface PageSeen {
  url: URL;
  body: unknown;
  headers: Headers;
  /** Records the page held. */
  records: number;
}

/** Walks an API's pages: the first request's URL, then each next one from the page before (null: no more). */
export interface Paginator {
  first(url: URL): URL;
  next(page: PageSeen): URL | null;
}

/** The paginator a source configures (docs/sources.md has a worked example of each). */
export function paginatorFor(p: SourcePaginator): Paginator {
  switch (p.type) {
    case 'none':
      return { first: (url) => url, next: () => null };
    case 'cursor':
      return {
        first: (url) => url,
        next: ({ url, body }) => {
          const cursor = readPath(body, p.cursor_path);
          if (cursor === undefined || cursor === null || cursor === '' || cursor === false) return null;
          return withParam(url, p.cursor_param, String(cursor));
        },
      };
    case 'next_url':
      return { first: (url) => url, next: ({ url, body }) => sameOrigin(url, readPath(body, p.next_url_path)) };
    case 'link_header':
      return { first: (url) => url, next: ({ url, headers }) => sameOrigin(url, linkNext(headers.get('link'))) };
    case 'offset':
      return offsetPaginator(p);
    case 'page_number':
      return pageNumberPaginator(p);
  }
}

function offsetPaginator(p: Extract<SourcePaginator, { type: 'offset' }>): Paginator {
  return {
    first: (url) => withParam(withParam(url, p.offset_param, '0'), p.limit_param, String(p.limit)),
    next: ({ url, body, records }) => {
      const offset = Number(url.searchParams.get(p.offset_param) ?? 0) + p.limit;
      const total = p.total_path ? Number(readPath(body, p.total_path)) : Number.NaN;
      if (records < p.limit || (Number.isFinite(total) && offset >= total)) return null;
      return withParam(url, p.offset_param, String(offset));
    },
  };
}

function pageNumberPaginator(p: Extract<SourcePaginator, { type: 'page_number' }>): Paginator {
  return {
    first: (url) => {
      const first = withParam(url, p.page_param, String(p.start));
      return p.size_param && p.size ? withParam(first, p.size_param, String(p.size)) : first;
    },
    next: ({ url, body, records }) => {
      const page = Number(url.searchParams.get(p.page_param) ?? p.start);
      const totalPages = p.total_pages_path ? Number(readPath(body, p.total_pages_path)) : Number.NaN;
      if (records === 0 || (p.size && records < p.size)) return null;
      // total_pages counts pages, so the last page's number is start + total - 1
      if (Number.isFinite(totalPages) && page >= p.start + totalPages - 1) return null;
      return withParam(url, p.page_param, String(page + 1));
    },
  };
}

function withParam(url: URL, name: string, value: string): URL {
  const next = new URL(url);
  next.searchParams.set(name, value);
  return next;
}

/**
 * A next-page URL from the body or a Link header, resolved against the current
 * one. It must stay on the source's origin: the request carries its credentials.
 */
function sameOrigin(current: URL, value: unknown): URL | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string')
    throw new TerminalSourceError(`the next-page link of ${describeUrl(current)} is not a URL`);
  const next = new URL(value, current);
  if (next.origin !== current.origin) {
    throw new TerminalSourceError(
      `the next-page link leads to ${next.origin}, away from ${current.origin}; it is not followed (the request carries credentials)`,
    );
  }
  return next;
}

/** The `rel="next"` target of a Link header (RFC 8288): `<https://…?page=2>; rel="next", <…>; rel="last"`. */
export function linkNext(header: string | null): string | null {
  if (!header) return null;
  for (const part of header.split(/,\s*(?=<)/)) {
    const match = /^<([^>]*)>(.*)$/.exec(part.trim());
    if (match && /;\s*rel\s*=\s*"?([^";]*\s)?next(\s[^";]*)?"?/i.test(match[2] ?? '')) return match[1] ?? null;
  }
  return null;
}
