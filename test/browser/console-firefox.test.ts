import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { canvasInk, launchFirefox } from '../helpers/browser.js';

// The console in Firefox (issue 18: "works in a current Chromium and Firefox"): the main
// journey — sign in, search with filters, a profile whose charts draw — with no page
// error, no console error and no CSP violation. The full journey runs in Chromium
// (console.test.ts); this proves the same code runs in the other engine.

let t: TestApp;
let browser: Browser;
let page: Page;
let ownerKey: string;
const problems: string[] = [];

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestApp({ creators: 300 }), launchFirefox()]);
  ownerKey = await t.key();
  page = await browser.newPage();
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`); });
  page.on('pageerror', (error) => { problems.push(`page error: ${error instanceof Error ? error.message : String(error)}`); });
  // CSP violations are collected in the page (BiDi has no binding for them) and read after each step
  await page.evaluateOnNewDocument(() => {
    const seen: string[] = [];
    (window as unknown as { __violations: string[] }).__violations = seen;
    document.addEventListener('securitypolicyviolation', (e) => { seen.push(`${e.violatedDirective} blocked ${e.blockedURI}`); });
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/**
 * Polls a condition in the page. Puppeteer's waitForFunction builds its poller
 * with `new Function` inside the page, which Firefox refuses under the console's
 * CSP (Chromium's DevTools protocol is exempt); a plain evaluate is not.
 */
async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await page.evaluate(condition))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${condition.toString()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Goes to a console route and waits until it has drawn. */
async function visit(hash: string, ready: string): Promise<void> {
  await page.evaluate((h) => {
    document.getElementById('main')?.removeAttribute('data-ready');
    location.hash = h;
  }, hash);
  await waitReady(ready);
}

async function waitReady(ready: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while ((await page.evaluate(() => document.getElementById('main')?.dataset['ready'] ?? null)) !== ready) {
    if (Date.now() > end) throw new Error(`the console did not draw ${ready}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function violations(): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __violations?: string[] }).__violations ?? []);
}

describe('the console in Firefox', () => {
  it('signs in, searches with filters and opens a profile whose charts draw, without an error or a CSP violation', async () => {
    await page.goto(`${t.url}/console`);
    await waitReady('sign-in', 20_000);
    await page.type('#api-key', ownerKey);
    await page.keyboard.press('Enter');
    await waitReady('creators');
    expect(await page.$eval('.who', (el) => el.textContent ?? '')).toContain('entry');

    await visit('#/creators?niche=beauty,fitness&sort=-followers&limit=10', 'creators');
    const niches = await page.$$eval('tbody tr', (trs) => trs.map((tr) => tr.querySelectorAll('td')[3]?.textContent ?? ''));
    expect(niches.length).toBeGreaterThan(0);
    for (const n of niches) expect(['beauty', 'fitness']).toContain(n);

    const href = await page.$eval('tbody tr td:nth-child(2) a', (a) => a.getAttribute('href') ?? '');
    await visit(href, 'creators-profile');
    // the follower history's line chart (audience bar charts only draw for creators with audience data)
    await until(() => [...document.querySelectorAll('canvas')].some((c) => c.width > 0 && (c.getAttribute('aria-label') ?? '').startsWith('Followers per day')));
    const ink = await canvasInk(page);
    expect(ink.find((c) => c.label.startsWith('Followers per day'))?.inked).toBeGreaterThan(500);
    expect(await violations()).toEqual([]);
    expect(problems).toEqual([]);
  }, 60_000);
});
