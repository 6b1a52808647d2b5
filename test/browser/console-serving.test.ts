import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../server/console/console.routes.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ creators: 0 });
});
afterAll(async () => t.close());

/** URLs in a text that point anywhere but this origin (the webhook form's placeholder is an example, not a fetch). */
function foreignUrls(text: string): string[] {
  return [...new Set(text.match(/https?:\/\/[^"'`\s)<>]+/g) ?? [])].filter(
    (u) => !u.startsWith('https://example.com/'),
  );
}

describe('the console is served by the API server, from its own origin, under a strict CSP', () => {
  it('GET /console answers the page without a key, with the CSP and no inline script', async () => {
    const res = await t.api('/console');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('set-cookie')).toBeNull();
    const html = await res.text();
    // every <script> has a src on this origin: the CSP would refuse an inline one anyway
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attrs, body] of scripts) {
      expect(attrs).toMatch(/src="\/console\/assets\//);
      expect(body).toBe('');
    }
    expect(html).not.toMatch(/\sstyle=/);
    expect(foreignUrls(html)).toEqual([]);
  });

  it('the bundled script and the stylesheet come from /console/assets and name no other origin', async () => {
    const js = await t.api('/console/assets/console.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    const code = await js.text();
    expect(code.length).toBeGreaterThan(10_000);
    expect(foreignUrls(code)).toEqual([]);
    expect(code).not.toMatch(/\beval\(|new Function\(/);
    const css = await t.api('/console/assets/console.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(foreignUrls(await css.text())).toEqual([]);
  });

  it('an unknown asset is a 404 problem, and the path cannot reach other files', async () => {
    for (const name of ['missing.js', '..%2Fconsole.routes.ts', '__proto__']) {
      const res = await t.api(`/console/assets/${name}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });
});
