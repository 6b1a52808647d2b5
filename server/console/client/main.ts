import { Api, ApiError } from './api.js';
import { h, replace } from './dom.js';
import { ROUTES, matchRoute } from './routes.js';
import { Session } from './session.js';
import { signInPage } from './pages/sign-in.js';
import { errorText, message, type Account, type Meta, type OpenApiDoc, type View } from './view.js';

const NAV: ReadonlyArray<[string, string]> = [
  ['#/creators', 'Creators'],
  ['#/lists', 'Lists'],
  ['#/exports', 'Exports'],
  ['#/webhooks', 'Webhooks'],
  ['#/usage', 'Usage'],
  ['#/keys', 'Keys'],
];

/** The console: a shell (header, navigation, main) and a hash router over the pages. */
class Console {
  private readonly session = new Session();
  private readonly api = new Api(this.session, (error) => this.signedOut(error));
  private account: Account | null = null;
  private meta: Promise<Meta> | null = null;
  private openapi: Promise<OpenApiDoc> | null = null;
  private navigation: AbortController | null = null;
  private refused: string | null = null;
  private readonly main = h('main', { id: 'main', tabindex: -1 });
  private readonly header = h('header', { class: 'shell-head' });

  start(root: HTMLElement): void {
    replace(
      root,
      h(
        'a',
        {
          class: 'skip',
          href: '#main',
          onclick: (e) => {
            e.preventDefault();
            this.main.focus();
          },
        },
        'Skip to content',
      ),
      this.header,
      this.main,
    );
    window.addEventListener('hashchange', () => void this.render());
    void this.render();
  }

  private async render(): Promise<void> {
    this.navigation?.abort();
    const navigation = new AbortController();
    this.navigation = navigation;
    const route = matchRoute(location.hash);
    this.main.removeAttribute('data-ready');
    this.main.setAttribute('aria-busy', 'true');
    const root = h('div', { class: 'page' });
    replace(this.main, root);
    if (!this.session.current || route.name === 'sign-in')
      return this.showSignIn(root, navigation, route.name === 'sign-in');
    try {
      this.account ??= await this.api.get<Account>('/v1/account');
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) replace(root, message('error', errorText(error)));
      return;
    }
    this.drawHeader(route.name);
    await this.runPage(route, root, navigation);
  }

  private async runPage(
    route: ReturnType<typeof matchRoute>,
    root: HTMLElement,
    navigation: AbortController,
  ): Promise<void> {
    const view = this.view(root, navigation.signal, route.params, route.query);
    try {
      if (route.name !== 'sign-in') await ROUTES[route.name](view);
    } catch (error) {
      if (navigation.signal.aborted || (error instanceof ApiError && error.status === 401)) return;
      root.prepend(message('error', errorText(error)));
    }
    this.ready(route.name, navigation);
  }

  private showSignIn(root: HTMLElement, navigation: AbortController, explicit: boolean): void {
    this.account = null;
    replace(this.header, h('span', { class: 'brand' }, 'Creator Data Service · Console'));
    const next = explicit ? '#/creators' : location.hash || '#/creators';
    signInPage(root, this.refused, (key, remember) => this.signIn(key, remember, next));
    this.refused = null;
    this.ready('sign-in', navigation);
  }

  private async signIn(key: string, remember: boolean, next: string): Promise<void> {
    this.session.signIn(key, remember);
    this.account = await this.api.get<Account>('/v1/account');
    if (location.hash === next) void this.render();
    else location.hash = next;
  }

  private signedOut(error: ApiError | null): void {
    this.account = null;
    this.refused = error ? `Signed out: ${error.describe()}` : null;
    if (location.hash === '#/sign-in') void this.render();
    else location.hash = '#/sign-in';
  }

  private drawHeader(current: string): void {
    const account = this.account;
    replace(
      this.header,
      h('a', { class: 'brand', href: '#/creators' }, 'CDS Console'),
      h(
        'nav',
        { 'aria-label': 'Console sections' },
        h(
          'ul',
          null,
          NAV.map(([href, label]) =>
            h(
              'li',
              null,
              h('a', { href, 'aria-current': href.slice(2) === current.split('-')[0] ? 'page' : null }, label),
            ),
          ),
        ),
      ),
      h(
        'div',
        { class: 'who' },
        account ? `${account.name} · ${account.plan}` : '',
        h(
          'button',
          {
            type: 'button',
            class: 'link',
            onclick: () => {
              this.session.signOut();
              this.signedOut(null);
            },
          },
          'Sign out',
        ),
      ),
    );
  }

  private view(root: HTMLElement, signal: AbortSignal, params: Record<string, string>, query: URLSearchParams): View {
    const account = this.account!;
    return {
      api: this.api,
      account,
      root,
      signal,
      params,
      query,
      meta: () => (this.meta ??= this.api.get<Meta>('/v1/meta')),
      openapi: () => (this.openapi ??= this.api.get<OpenApiDoc>('/v1/openapi.json')),
      go: (hash) => {
        location.hash = hash;
      },
      reload: () => void this.render(),
      can: (scope) => account.key.scopes.includes(scope),
    };
  }

  /** Marks the page as rendered (tests wait on `data-ready`) and moves focus to its heading. */
  private ready(name: string, navigation: AbortController): void {
    if (navigation.signal.aborted) return;
    this.main.setAttribute('aria-busy', 'false');
    this.main.dataset['ready'] = name;
    const title = this.main.querySelector('h1');
    document.title = `${title?.textContent ?? 'Console'} · CDS Console`;
    if (title instanceof HTMLElement && document.activeElement === document.body) title.focus({ preventScroll: true });
  }
}

new Console().start(document.getElementById('app')!);
