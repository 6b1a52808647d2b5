import type { SourceSecrets } from '../config/secrets.js';
import type { SourceAuth, ValueOrSecret } from '../config/sources-schema.js';

/** What a source sends with every request: its headers and its auth. */
export interface RequestCredentials {
  headers: Readonly<Record<string, ValueOrSecret>>;
  auth?: SourceAuth | undefined;
}

/** The configured headers and the header auth styles (bearer, API key header, basic), secrets resolved. */
export function authHeaders(cfg: RequestCredentials, secrets: SourceSecrets): Record<string, string> {
  const headers = Object.fromEntries(Object.entries(cfg.headers).map(([k, v]) => [k, secrets.value(v)]));
  const auth = cfg.auth;
  if (auth?.type === 'bearer') headers['authorization'] = `Bearer ${secrets.secret(auth.token)}`;
  if (auth?.type === 'api_key_header') headers[auth.name] = secrets.secret(auth.key);
  if (auth?.type === 'basic') {
    const user = typeof auth.username === 'string' ? auth.username : secrets.secret(auth.username);
    const credential = Buffer.from(`${user}:${secrets.secret(auth.password)}`).toString('base64');
    secrets.remember(credential);
    headers['authorization'] = `Basic ${credential}`;
  }
  return headers;
}

/** An API key in the query goes on every request, also on next-page URLs the API hands back. */
export function withQueryAuth(url: URL, auth: SourceAuth | undefined, secrets: SourceSecrets): URL {
  if (auth?.type !== 'api_key_query') return url;
  const signed = new URL(url);
  signed.searchParams.set(auth.name, secrets.secret(auth.key));
  return signed;
}
