const STORAGE_KEY = 'cds.console.key';

/**
 * The pasted API key. It lives in memory and, unless the user opted out, in this
 * tab's sessionStorage (gone when the tab closes; never a cookie, so no request is
 * authenticated by the browser on its own and there is no CSRF surface).
 */
export class Session {
  private key: string | null;

  constructor(private readonly storage: Storage | null = safeSessionStorage()) {
    this.key = this.storage?.getItem(STORAGE_KEY) ?? null;
  }

  /** The key, or null when signed out. */
  get current(): string | null {
    return this.key;
  }

  signIn(key: string, remember: boolean): void {
    this.key = key;
    if (remember) this.storage?.setItem(STORAGE_KEY, key);
    else this.storage?.removeItem(STORAGE_KEY);
  }

  /** Forgets the key everywhere it was kept. */
  signOut(): void {
    this.key = null;
    this.storage?.removeItem(STORAGE_KEY);
  }
}

function safeSessionStorage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null; // storage disabled by the browser: memory only
  }
}
