import type { Session } from './session.js';

/** A problem+json answer of the API (RFC 9457), as the console shows it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly errors: ReadonlyArray<{ param?: string; field?: string; message: string }> = [],
    /** The problem's other members (`creators` of `follower_sample_missing`, `platforms` of `ambiguous_handle`, …). */
    readonly extensions: Readonly<Record<string, unknown>> = {},
  ) {
    super(detail);
  }

  /** The detail plus each offending parameter or field, for the page. */
  describe(): string {
    const parts = this.errors.map((e) => `${e.param ?? e.field ?? ''}: ${e.message}`);
    return parts.length > 0 ? `${this.detail} (${parts.join('; ')})` : this.detail;
  }
}

export type Query = Record<string, string | number | boolean | null | undefined>;

/**
 * Calls the public /v1 API with the session's key as a Bearer token, exactly
 * as any API client would. A 401 signs out and hands over to `onUnauthorized`.
 */
export class Api {
  constructor(
    private readonly session: Session,
    private readonly onUnauthorized: (error: ApiError) => void,
  ) {}

  get<T>(path: string, query: Query = {}): Promise<T> {
    return this.request<T>('GET', withQuery(path, query));
  }

  send<T>(method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
    return this.request<T>(method, path, body);
  }

  /** A file (e.g. an export download) fetched with the key, as a Blob. */
  async blob(path: string): Promise<Blob> {
    return (await this.fetch('GET', path)).blob();
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.fetch(method, path, body);
    if (res.status === 204) return undefined as T;
    return (await res.json()) as T;
  }

  private async fetch(method: string, path: string, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    const key = this.session.current;
    if (key) headers['Authorization'] = `Bearer ${key}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
    });
    if (res.ok) return res;
    const error = await problemOf(res);
    if (res.status === 401) {
      this.session.signOut();
      this.onUnauthorized(error);
    }
    throw error;
  }
}

async function problemOf(res: Response): Promise<ApiError> {
  try {
    const p = (await res.json()) as { code?: string; detail?: string; errors?: ApiError['errors'] } & Record<
      string,
      unknown
    >;
    return new ApiError(res.status, p.code ?? 'error', p.detail ?? res.statusText, p.errors ?? [], p);
  } catch {
    return new ApiError(res.status, 'error', `The server answered ${res.status} ${res.statusText}.`);
  }
}

/** `path?a=1&b=x`, leaving out empty values. */
export function withQuery(path: string, query: Query): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== null && v !== undefined && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** Every item of a paged collection (`{data, next_cursor}`), up to `max`. */
export async function allPages<T>(api: Api, path: string, max = 500): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const page: { data: T[]; next_cursor: string | null } = await api.get(path, { limit: 100, cursor });
    items.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor && items.length < max);
  return items;
}
