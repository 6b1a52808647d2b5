import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookalikesReady, startTestApp, type TestApp } from '../helpers/app.js';
import { launchBrowser, visit, waitReady, watchedPage, type WatchedPage } from '../helpers/browser.js';

let t: TestApp;
let browser: Browser;
let tab: WatchedPage;
let page: Page;
let key: string;
let creator: { handle: string; platform: string };

interface Answer {
  creators: Array<{ handle: string; reasons: Array<{ detail: string }> }>;
}

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestApp({ creators: 600 }), launchBrowser()]);
  key = await t.key();
  creator = (await t.store.one<{ handle: string; platform: string }>(
    'SELECT c.handle, c.platform FROM creator_personas p JOIN creators c USING (creator_id) ORDER BY p.persona, p.creator_id LIMIT 1',
  ))!;
  await lookalikesReady(t, creator, key);
  tab = await watchedPage(browser);
  page = tab.page;
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the profile page in a real browser', () => {
  it('shows similar creators with their similarity and reasons, on the basis picked, as the API answers them', async () => {
    await page.goto(`${t.url}/console`);
    await waitReady(page, 'sign-in');
    await page.type('#api-key', key);
    await page.keyboard.press('Enter');
    await waitReady(page, 'creators');
    await visit(page, `#/creators/${creator.platform}/${encodeURIComponent(creator.handle)}`, 'creators-profile');
    expect(await page.$$('.similar tbody tr')).toHaveLength(0);
    await page.select('#similar-basis', 'content');
    const button = await page.waitForSelector('::-p-xpath(.//button[normalize-space(.)="Show similar creators"])');
    await button!.click();
    await page.waitForSelector('.similar tbody tr');
    const shown = await page.$$eval('.similar tbody tr', (trs) =>
      trs.map((tr) => ({
        handle: tr.querySelector('td a')?.textContent ?? '',
        reasons: [...tr.querySelectorAll('.reasons li')].map((li) => li.textContent ?? ''),
      })),
    );
    const api = (await (
      await t.api(`/v1/creators/${creator.handle}/lookalikes?platform=${creator.platform}&basis=content&limit=10`, {
        key,
      })
    ).json()) as Answer;
    expect(shown).toEqual(api.creators.map((c) => ({ handle: c.handle, reasons: c.reasons.map((r) => r.detail) })));
    expect(shown.length).toBeGreaterThan(0);
    expect(shown[0]!.reasons.length).toBeGreaterThan(0);
    expect(tab.problems).toEqual([]);
  });
});
