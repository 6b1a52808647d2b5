import { ApiError, type Api } from './api.js';
import { h, replace, type Child } from './dom.js';

/** GET /v1/account */
export interface Account {
  account_id: string;
  name: string;
  plan: string;
  limits: Record<string, number | null>;
  usage: { requests: number; remaining: number; resets_in_seconds: number };
  key: { key_id: string; scopes: string[] };
}

/** GET /v1/meta */
export interface Meta {
  niches: string[];
  platforms: string[];
  sort_keys: string[];
  genders: string[];
  age_ranges: string[];
  verdicts: string[];
  interests: string[];
  suggest_fields: string[];
}

/** The parts of /v1/openapi.json the console reads (search parameters, event names). */
export interface OpenApiDoc {
  paths: Record<string, Record<string, { parameters?: OpenApiParameter[]; requestBody?: unknown }>>;
  components?: { schemas?: Record<string, unknown> };
}

export interface OpenApiParameter {
  name: string;
  in: string;
  description?: string;
  schema?: {
    type?: string;
    enum?: string[];
    minimum?: number;
    maximum?: number;
    default?: unknown;
    description?: string;
  };
}

/** What a page is given: the API, the signed-in account, its own root element and the route's parts. */
export interface View {
  api: Api;
  account: Account;
  meta(): Promise<Meta>;
  openapi(): Promise<OpenApiDoc>;
  /** The page's element, already in the document (charts measure their box). */
  root: HTMLElement;
  /** Aborted when the user navigates away: polling stops, late answers are dropped. */
  signal: AbortSignal;
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  /** Navigates to a console route (`#/…`). */
  go(hash: string): void;
  /** Renders the current route again (after a change). */
  reload(): void;
  /** True when the signed-in key holds the scope (controls for other scopes are not offered). */
  can(scope: string): boolean;
}

export type Page = (view: View) => Promise<void>;

/** The page heading, focusable so navigation can move focus to it. */
export function heading(title: string, ...extra: Child[]): HTMLElement {
  return h('header', { class: 'page-head' }, h('h1', { tabindex: -1 }, title), extra);
}

/** A message box: `role=alert` for errors so screen readers announce them. */
export function message(kind: 'error' | 'ok' | 'info', text: Child): HTMLElement {
  return h('div', { class: `msg msg-${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}

/** Puts the API's `detail` (or any error's message) in `slot`. */
export function showError(slot: Element, error: unknown): void {
  replace(slot, message('error', errorText(error)));
}

export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.describe();
  return error instanceof Error ? error.message : String(error);
}

/** Runs `work`; a failure is shown in `slot` instead of escaping (the page stays usable). */
export async function guarded(slot: Element, work: () => Promise<void>): Promise<void> {
  replace(slot);
  try {
    await work();
  } catch (error) {
    // a 401 already went back to sign-in
    if (!(error instanceof ApiError && error.status === 401)) showError(slot, error);
  }
}

/** Resolves after `ms`, or at once when the page is left. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
