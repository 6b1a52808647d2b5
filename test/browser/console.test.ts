import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../connectors/webhooks/index.js';
import { createExportWorker, type ExportWorker } from '../../connectors/exports/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { canvasInk, launchBrowser, visit, waitReady, watchedPage, type WatchedPage } from '../helpers/browser.js';
import { eventually } from '../helpers/eventually.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { setContentLists } from '../helpers/store.js';
import { startWorker, WEBHOOK_TEST_ENV } from '../integration/webhook-fixtures.js';

/** A page must have drawn within this long after the user asked for it (issue 18). */
const PAGE_BUDGET_MS = 1000;
/** A small world keeps the suite fast; CDS_CONSOLE_TEST_CREATORS=50000 measures the pages on the demo-sized one. */
const CREATORS = Number(process.env['CDS_CONSOLE_TEST_CREATORS'] ?? 600);
/**
 * The pictures in docs/console are rewritten only when asked (`CDS_UPDATE_SCREENSHOTS=1 npm test`): a plain run
 * takes them into a temp folder, so it leaves `git status` clean (every run differs by a few pixels and times).
 */
const SCREENSHOTS =
  process.env['CDS_UPDATE_SCREENSHOTS'] === '1'
    ? join(import.meta.dirname, '../../docs/console')
    : mkdtempSync(join(tmpdir(), 'cds-console-shots-'));

let t: TestApp;
let browser: Browser;
let receiver: Receiver;
let webhooks: DeliveryWorker;
let exportsWorker: ExportWorker;
let tab: WatchedPage;
let page: Page;
let ownerKey: string;
let downloads: string;
const timings: Record<string, number> = {};

beforeAll(async () => {
  [t, browser, receiver] = await Promise.all([
    startTestApp({ creators: CREATORS, env: WEBHOOK_TEST_ENV }),
    launchBrowser(),
    startReceiver(),
  ]);
  webhooks = startWorker(t.state, t.config);
  exportsWorker = createExportWorker(
    { store: t.store, state: t.state, config: t.config, logger: pino({ level: 'silent' }) },
    { pollMs: 100 },
  );
  exportsWorker.start();
  ownerKey = await t.key();
  mkdirSync(SCREENSHOTS, { recursive: true });
  downloads = mkdtempSync(join(tmpdir(), 'cds-console-downloads-'));
  tab = await watchedPage(browser);
  page = tab.page;
  const cdp = await page.createCDPSession();
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
});

afterAll(async () => {
  await browser?.close();
  await exportsWorker?.stop();
  await webhooks?.stop();
  await receiver?.close();
  await t?.close();
  if (downloads) rmSync(downloads, { recursive: true, force: true });
  if (SCREENSHOTS.startsWith(tmpdir())) rmSync(SCREENSHOTS, { recursive: true, force: true });
});

afterEach(() => {
  // every step: nothing in the console, no uncaught error, no CSP violation, no failed request
  expect(tab.problems.splice(0)).toEqual([]);
});

/** Goes to a page, checks it drew within the budget, and saves its screenshot for the README. */
async function open(hash: string, ready: string, shot?: string): Promise<void> {
  const ms = await visit(page, hash, ready);
  timings[ready] = Math.max(timings[ready] ?? 0, ms);
  expect(ms, `${hash} drew in ${ms} ms`).toBeLessThan(PAGE_BUDGET_MS);
  if (shot) await screenshot(shot);
}

async function screenshot(name: string): Promise<void> {
  // the pictures go into the repository: a shown-once secret (of a throw-away test account) is cut to its prefix
  await page.$$eval('input.secret', (inputs) =>
    inputs.forEach((i) => {
      (i as HTMLInputElement).value = `${(i as HTMLInputElement).value.slice(0, 10)}…`;
    }),
  );
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) as `${string}.png`, fullPage: true });
}

async function text(selector: string): Promise<string> {
  return page.$eval(selector, (el) => el.textContent ?? '');
}

/** Clicks the button (or link) whose text is exactly `label`, optionally inside `scope`. */
async function click(label: string, scope = 'body'): Promise<void> {
  const handle = await page.waitForSelector(
    `${scope} ::-p-xpath(.//*[(self::button or self::a) and normalize-space(.)="${label}"])`,
  );
  await handle!.click();
}

async function fill(selector: string, value: string): Promise<void> {
  await page.$eval(selector, (el) => {
    (el as HTMLInputElement).value = '';
  });
  await page.type(selector, value);
}

describe('the console in a real browser', () => {
  it("serves a page under a strict CSP; a refused key shows the API's reason, a good one signs in", async () => {
    const started = Date.now();
    const res = await page.goto(`${t.url}/console`);
    expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
    await waitReady(page, 'sign-in');
    // the first load of a process also bundles the console (once, in memory): reported, not held to the page budget
    timings['first-load'] = Date.now() - started;
    await screenshot('sign-in');
    await page.type('#api-key', 'cds_live_not_a_real_key');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.msg-error');
    expect(await text('.msg-error')).toMatch(/Signed out: .+/);
    // the refused key's 401 is the one problem this step expects (Chromium logs every 4xx fetch)
    expect(tab.problems.splice(0)).toEqual([expect.stringMatching(/status of 401/)]);
    await fill('#api-key', ownerKey);
    await page.keyboard.press('Enter');
    await waitReady(page, 'creators');
    expect(await text('.who')).toContain('entry');
  });

  it('keys: creates a key whose secret is shown once and works, then revokes it and the API refuses it', async () => {
    await open('#/keys', 'keys');
    await page.type('#key-name', 'ci pipeline');
    await page.$eval('input[name="scopes"][value="verify"]', (el) => {
      (el as HTMLInputElement).checked = false;
    });
    await Promise.all([waitAfterHashChange('keys', true), click('Create key')]);
    const secret = await page.$eval('.secret-panel input.secret', (el) => (el as HTMLInputElement).value);
    expect(secret).toMatch(/^cds_/);
    const account = (await (await t.api('/v1/account', { key: secret })).json()) as { key: { scopes: string[] } };
    expect(account.key.scopes).not.toContain('verify');
    expect(account.key.scopes).toContain('read');
    await screenshot('keys');
    const row = await page.waitForSelector(
      'tbody tr ::-p-xpath(ancestor-or-self::tr[.//td[contains(., "ci pipeline")]])',
    );
    await (await row!.$('button[aria-label="Revoke ci pipeline"]'))!.click();
    await Promise.all([waitAfterHashChange('keys', true), click('Confirm revoke')]);
    expect(await page.$eval('tbody', (el) => el.textContent ?? '')).toContain('revoked');
    expect((await t.api('/v1/account', { key: secret })).status).toBe(401);
  });

  it('searches with filters and sort, pages with the cursor, and opens a profile whose charts have drawn', async () => {
    await open(
      '#/creators?niche=beauty,fitness&followers_min=1000&sort=-engagement_rate&limit=10',
      'creators',
      'creators',
    );
    const rows = await page.$$eval('tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(['beauty', 'fitness']).toContain(r[3]);
    // the form shows the filters of the route: the ticked niches and the sort
    expect(await page.$eval('input[name="niche"][value="beauty"]', (el) => (el as HTMLInputElement).checked)).toBe(
      true,
    );
    expect(await page.$eval('#f-sort', (el) => (el as HTMLSelectElement).value)).toBe('-engagement_rate');
    // the form's own submit sends the same query the route had
    await page.$eval('#f-followers_min', (el) => {
      (el as HTMLInputElement).value = '2000';
    });
    await Promise.all([waitAfterHashChange('creators'), click('Search')]);
    expect(page.url()).toContain('followers_min=2000');
    const first = await page.$eval('tbody tr td:nth-child(2) a', (a) => a.textContent ?? '');
    await Promise.all([waitAfterHashChange('creators'), click('Next page ›')]);
    expect(page.url()).toContain('cursor=');
    expect(await page.$eval('tbody tr td:nth-child(2) a', (a) => a.textContent ?? '')).not.toBe(first);

    const href = await page.$eval('tbody tr td:nth-child(2) a', (a) => a.getAttribute('href') ?? '');
    await open(href, 'creators-profile');
    // a percentile bar per benchmark with a value, at the API's percentile
    const [, , shownPlatform = '', shownHandle = ''] = href.split('/');
    const { benchmarks, price_estimate } = (await (
      await t.api(`/v1/creators/${shownHandle}?platform=${shownPlatform}`, { key: ownerKey })
    ).json()) as {
      benchmarks: Record<'engagement_rate' | 'growth_30d' | 'avg_views' | 'authenticity_score', number | null>;
      price_estimate: { confidence: string; per_type: Array<{ type: string; low: number; mid: number; high: number }> };
    };
    // the price range per post type, as the API gives it, with its confidence (docs/pricing.md)
    const priceRows = await page.$$eval('#price-title ~ .table-wrap tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
    );
    const usd = (n: number): string => `$${Math.round(n).toLocaleString('en')}`;
    expect(priceRows).toEqual(price_estimate.per_type.map((p) => [p.type, usd(p.low), usd(p.mid), usd(p.high)]));
    expect(await text('#price-title + .sub')).toContain(`confidence ${price_estimate.confidence}`);
    const meters = await page.$$eval('#bench-title ~ dl meter', (ms) => ms.map((m) => (m as HTMLMeterElement).value));
    expect(meters.length).toBeGreaterThan(0);
    expect(meters).toEqual(
      [benchmarks.engagement_rate, benchmarks.growth_30d, benchmarks.avg_views, benchmarks.authenticity_score].filter(
        (v) => v !== null,
      ),
    );
    await page.waitForFunction(() => document.querySelectorAll('canvas').length >= 2);
    await page.waitForFunction(() => [...document.querySelectorAll('canvas')].every((c) => c.width > 0));
    const ink = await canvasInk(page);
    const followers = ink.find((c) => c.label.startsWith('Followers per day'));
    expect(followers?.width).toBeGreaterThan(100);
    expect(followers?.inked).toBeGreaterThan(500);
    const bars = ink.filter((c) => !c.label.startsWith('Followers'));
    expect(bars.length).toBeGreaterThanOrEqual(3);
    for (const b of bars) expect(b.inked, b.label).toBeGreaterThan(200);
    expect(await text('#auth-title')).toBe('Authenticity');
    await click('Verify now');
    await page.waitForSelector('.signals tbody tr');
    expect(await page.$$eval('.signals tbody tr', (trs) => trs.length)).toBeGreaterThan(2);
    await screenshot('profile');
  });

  it('discovery: finds a creator by hashtag with suggestions, creators by audience gender, and shows the content block and its chart', async () => {
    const c = await tagCreator('zqconsole');
    await open('#/creators?limit=10', 'creators');
    await page.type('#f-hashtags', 'ZQcon');
    await page.waitForFunction(
      () => document.querySelector('#f-hashtags-values option')?.getAttribute('value') === 'zqconsole',
    );
    await fill('#f-hashtags', 'zqconsole');
    await Promise.all([waitAfterHashChange('creators'), click('Search')]);
    expect(page.url()).toContain('hashtags=zqconsole');
    expect(await text('#results-title')).toBe('1 creators match');
    expect(await page.$$eval('tbody tr td:nth-child(2) a', (as) => as.map((a) => a.firstChild?.textContent))).toEqual([
      c.handle,
    ]);

    await open(
      '#/creators?audience_gender=female&audience_gender_min_pct=60&limit=10',
      'creators',
      'creators-audience',
    );
    expect(await page.$eval('#f-audience_gender', (el) => (el as HTMLSelectElement).value)).toBe('female');
    const api = (await (
      await t.api('/v1/creators/search?audience_gender=female&audience_gender_min_pct=60&limit=10', { key: ownerKey })
    ).json()) as { results: number; creators: Array<{ handle: string }> };
    expect(api.results).toBeGreaterThan(0);
    expect(await text('#results-title')).toBe(`${api.results.toLocaleString('en')} creators match`);
    expect(await page.$$eval('tbody tr td:nth-child(2) a', (as) => as.map((a) => a.firstChild?.textContent))).toEqual(
      api.creators.map((x) => x.handle),
    );

    await open(`#/creators/${c.platform}/${encodeURIComponent(c.handle)}`, 'creators-profile');
    expect(await page.$$eval('#content-title ~ ul.tags a', (as) => as.map((a) => a.textContent))).toEqual([
      '#mealprep',
      '#zqconsole',
      '@zqbrand',
    ]);
    expect(await page.$eval('#content-title ~ .table-wrap tbody', (el) => el.textContent ?? '')).toContain('@zqbrand');
    expect(await text('#reach-title ~ p')).toContain('No contact on record');
    await page.waitForFunction(() => [...document.querySelectorAll('canvas')].every((x) => x.width > 0));
    const engagement = (await canvasInk(page)).find((x) =>
      x.label.startsWith('Engagement: sponsored vs organic posts'),
    );
    expect(engagement?.label).toContain('sponsored 4.2%, organic 2.1%');
    expect(engagement?.inked).toBeGreaterThan(200);

    // the picture for the docs: a demo creator's own content block
    const demo = (await t.store.one<{ handle: string; platform: string }>(`SELECT handle, platform FROM creators
      JOIN creator_content USING (creator_id) WHERE len(brands) > 1 AND handle IN (SELECT handle FROM creators GROUP BY handle HAVING count(*) = 1) ORDER BY followers DESC LIMIT 1`))!;
    await open(`#/creators/${demo.platform}/${encodeURIComponent(demo.handle)}`, 'creators-profile');
    expect(await page.$$eval('#content-title ~ ul.tags li', (lis) => lis.length)).toBeGreaterThan(0);
    await page.waitForFunction(() => [...document.querySelectorAll('canvas')].every((x) => x.width > 0));
    const section = await page.$('section[aria-labelledby="content-title"]');
    await section!.screenshot({ path: join(SCREENSHOTS, 'profile-content.png') as `${string}.png` });
  });

  it('lists: creates a list, adds creators ticked in a search, removes one', async () => {
    await open('#/lists', 'lists');
    await page.type('#list-name', 'Shortlist');
    await Promise.all([waitAfterHashChange('lists-detail'), click('Create list')]);
    await open('#/creators?niche=food&limit=10', 'creators');
    await page.waitForFunction(
      () => (document.querySelector('#add-to-list') as HTMLSelectElement | null)?.options.length === 2,
    );
    await page.select(
      '#add-to-list',
      await page.$eval('#add-to-list option:nth-child(2)', (o) => (o as HTMLOptionElement).value),
    );
    const boxes = await page.$$('tbody input[type="checkbox"]');
    for (const box of boxes.slice(0, 3)) await box.click();
    await click('Add selected to list');
    await page.waitForSelector('.msg-ok');
    expect(await text('.msg-ok')).toContain('Added 3');
    await open('#/lists', 'lists', 'lists');
    const listHref = await page.$eval('tbody a', (a) => a.getAttribute('href') ?? '');
    await open(listHref, 'lists-detail');
    expect(await page.$$eval('tbody tr', (trs) => trs.length)).toBe(3);
    await Promise.all([waitAfterHashChange('lists-detail', true), (await page.$('tbody tr button'))!.click()]);
    expect(await page.$$eval('tbody tr', (trs) => trs.length)).toBe(2);
  });

  it('"not in list" leaves out the creators already on a list', async () => {
    const listId = (await page.$eval('.page-head h1', () => location.hash)).split('/')[2]!;
    const onList = await page.$$eval('tbody tr td:first-child', (tds) => tds.map((td) => td.textContent ?? ''));
    await open('#/creators?niche=food&limit=10', 'creators');
    await page.waitForSelector(`#f-exclude_list option[value="${listId}"]`);
    await page.select('#f-exclude_list', listId);
    await Promise.all([waitAfterHashChange('creators'), click('Search')]);
    expect(page.url()).toContain(`exclude_list=${listId}`);
    const shown = await page.$$eval('tbody tr td:nth-child(2) a', (as) =>
      as.map((a) => a.firstChild?.textContent ?? ''),
    );
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.filter((handle) => onList.includes(handle))).toEqual([]);
  });

  it("lists: compares the audiences of a list's creators as a chart, naming and leaving out those without a sample", async () => {
    await open('#/lists', 'lists');
    await open(await page.$eval('tbody a', (a) => a.getAttribute('href') ?? ''), 'lists-detail');
    const members = await page.$$eval('tbody tr', (trs) =>
      trs.map((tr) => [tr.children[0]?.textContent ?? '', tr.children[1]?.textContent ?? ''] as const),
    );
    const handles = members.map(([handle]) => handle);
    const creators: Array<{ creator_id: number; handle: string; platform: string }> = [];
    for (const [handle, platform] of members) {
      const row = await t.store.one<{ creator_id: number; handle: string; platform: string }>(
        'SELECT creator_id, handle, platform FROM creators WHERE handle = ? AND platform = ?',
        [handle, platform],
      );
      if (row) creators.push(row);
    }
    expect(creators.length).toBeGreaterThanOrEqual(2);
    await click('Compare audiences');
    await page.waitForSelector('.overlap-summary');
    expect(await text('.overlap-summary')).toMatch(
      /unique followers of [\d,]+ in all: [\d.]+% unique, [\d.]+% overlap/,
    );
    await page.waitForFunction(() =>
      [...document.querySelectorAll('#overlap-title ~ * canvas')].some((c) => (c as HTMLCanvasElement).width > 0),
    );
    const chart = (await canvasInk(page)).find((c) => c.label.startsWith('Unique and overlapping followers'));
    expect(chart?.inked).toBeGreaterThan(0);
    expect(chart?.label).toContain(handles[0]);
    // a creator without a sample is named and the others are still compared
    const [first] = creators;
    await t.store.run('DELETE FROM follower_sketches WHERE creator_id = ?', [first?.creator_id ?? 0]);
    const third = await t.store.one<{ handle: string; platform: string }>(
      `SELECT c.handle, c.platform FROM creators c SEMI JOIN follower_sketches s ON s.creator_id = c.creator_id
      WHERE c.handle NOT IN (${handles.map(() => '?').join(', ')}) ORDER BY c.creator_id LIMIT 1`,
      handles,
    );
    const listId = page.url().split('#/lists/')[1]?.split('?')[0] ?? '';
    const res = await t.api(`/v1/lists/${listId}/creators`, {
      method: 'POST',
      key: ownerKey,
      json: { creators: [third] },
    });
    expect([200, 201], await res.clone().text()).toContain(res.status);
    await open('#/lists', 'lists');
    await open(`#/lists/${listId}`, 'lists-detail');
    await click('Compare audiences');
    await page.waitForSelector('.overlap-summary');
    expect(await page.$eval('#overlap-title', (el) => el.parentElement?.textContent ?? '')).toContain(
      `Left out, no follower sample: ${first?.handle} (${first?.platform})`,
    );
    // the console asked once with every creator: the API's 422 named the one without a sample
    expect(tab.problems.splice(0)).toEqual([expect.stringMatching(/status of 422/)]);
  });

  it('webhooks: creates a subscription to a local receiver, sends a test and sees it in the log with status and latency', async () => {
    await open('#/webhooks', 'webhooks');
    await page.type('#wh-url', receiver.url);
    await page.type('#wh-description', 'console test');
    await Promise.all([waitAfterHashChange('webhooks', true), click('Create subscription')]);
    await page.waitForSelector('.secret-panel input.secret');
    expect(await page.$eval('tbody', (el) => el.textContent ?? '')).toContain('console test');
    expect(await page.$eval('.secret-panel input.secret', (el) => (el as HTMLInputElement).value)).toMatch(/^whsec_/);
    await screenshot('webhooks');
    await open(
      await page.$eval('.page a[href^="#/webhooks/whk_"]', (a) => a.getAttribute('href') ?? ''),
      'webhooks-detail',
    );
    await click('Send test event');
    await receiver.waitFor(1, 10_000);
    await page.waitForFunction(() => document.querySelector('tbody .status')?.textContent === 'succeeded', {
      timeout: 10_000,
    });
    const row = await page.$eval('tbody tr', (tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? ''));
    expect(row[1]).toBe('webhook.test');
    expect(row[3]).toBe('200');
    expect(row[4]).toMatch(/^\d+ ms$/);
    await click('Replay');
    await receiver.waitFor(2, 10_000);
    // the replay is the same delivery (same webhook-id) with a second attempt; the log follows it until it is done
    await page.waitForFunction(
      () =>
        document.querySelector('tbody tr td:nth-child(6) summary')?.textContent === '2' &&
        document.querySelector('tbody .status')?.textContent === 'succeeded',
      { timeout: 10_000 },
    );
    await screenshot('webhook-log');
  });

  it('exports: exports a search, shows progress until done, and downloads the file', async () => {
    await open('#/creators?niche=travel&sort=-followers', 'creators');
    await page.select('#export-format', 'csv');
    const asked = Date.now();
    await Promise.all([waitAfterHashChange('exports'), click('Export this search')]);
    timings['exports'] = Date.now() - asked;
    expect(timings['exports']).toBeLessThan(PAGE_BUDGET_MS);
    await page.waitForSelector('tbody .status-succeeded', { timeout: 15_000 });
    await screenshot('exports');
    await click('Download', 'tbody');
    const file = await waitForDownload();
    const csv = readFileSync(join(downloads, file), 'utf8');
    expect(csv.split('\r\n')[0]).toContain('handle');
    expect(csv.split('\r\n').filter((l) => l.length > 0).length).toBeGreaterThan(1);
  });

  it("usage: requests per day by status class are drawn beside the plan's limits and the heaviest operations", async () => {
    await t.app.flushUsage();
    await open('#/usage', 'usage', 'usage');
    await page.waitForFunction(() => (document.querySelector('canvas')?.width ?? 0) > 0);
    const [chart] = await canvasInk(page);
    expect(chart?.inked).toBeGreaterThan(200);
    expect(await page.$$eval('table', (ts) => ts.length)).toBeGreaterThanOrEqual(2);
  });

  it('is readable on a phone: no sideways scrolling of the page at 390 px', async () => {
    await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true });
    await open('#/creators?niche=beauty&limit=10', 'creators', 'phone-creators');
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(1);
    await page.setViewport({ width: 1280, height: 900 });
  });

  it("an enterprise key reveals a contact on the profile; the reveal is in the account's audit log and its usage", async () => {
    const enterprise = await t.keyWithAccount({ plan: 'enterprise' });
    const c = (await t.store.one<{
      handle: string;
      platform: string;
      creator_id: number;
    }>(`SELECT handle, platform, creator_id FROM creators
      WHERE handle IN (SELECT handle FROM creators GROUP BY handle HAVING count(*) = 1) ORDER BY creator_id DESC LIMIT 1`))!;
    await t.store.run('DELETE FROM creator_contacts WHERE creator_id = ?', [c.creator_id]);
    await t.store.run("INSERT INTO creator_contacts VALUES (?, 'press@example.com', 'https://example.com')", [
      c.creator_id,
    ]);
    await t.store.run('UPDATE creators SET has_contact = true WHERE creator_id = ?', [c.creator_id]);
    await click('Sign out');
    await waitReady(page, 'sign-in');
    await fill('#api-key', enterprise.key);
    await page.keyboard.press('Enter');
    await waitReady(page, 'creators');
    await open(`#/creators/${c.platform}/${encodeURIComponent(c.handle)}`, 'creators-profile');
    expect(await text('#reach-title ~ p')).toContain('A contact email or website is on record.');
    await click('Reveal contact');
    await page.waitForSelector('.contact .msg-info');
    expect(await text('.contact dl')).toContain('press@example.com');
    const log = (await (await t.api('/v1/contacts/reveals', { key: enterprise.key })).json()) as {
      data: Array<{ handle: string; fields: string[] }>;
    };
    expect(log.data).toEqual([expect.objectContaining({ handle: c.handle, fields: ['email', 'website'] })]);
    expect(await text('.contact .msg-info')).toMatch(/^Reveal rev_[0-9a-z]+ is in your account's audit log/);
  });

  it('signing out forgets the key: session storage is empty and the next page asks for a key', async () => {
    await click('Sign out');
    await waitReady(page, 'sign-in');
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(await page.evaluate(() => document.cookie)).toBe('');
    await visit(page, '#/lists', 'sign-in');
    console.log('console page draw times (ms):', JSON.stringify(timings));
  });
});

/**
 * Gives one creator stored posts with `tag` and a sponsored brand, and the
 * derived columns the derivation would compute from them, so the search finds it
 * by the tag and its profile has content to show.
 */
async function tagCreator(tag: string): Promise<{ handle: string; platform: string }> {
  const c = (await t.store.one<{
    handle: string;
    platform: string;
    creator_id: number;
  }>(`SELECT handle, platform, creator_id FROM creators
    WHERE handle IN (SELECT handle FROM creators GROUP BY handle HAVING count(*) = 1) ORDER BY creator_id LIMIT 1`))!;
  for (const table of ['posts', 'linked_accounts', 'creator_contacts'])
    await t.store.run(`DELETE FROM ${table} WHERE creator_id = ?`, [c.creator_id]);
  for (const [post, sponsored, brand] of [
    ['zq-1', true, '@zqbrand'],
    ['zq-2', true, '@zqbrand'],
    ['zq-3', false, null],
  ] as const) {
    await t.store.run(
      `INSERT INTO posts (creator_id, post_id, posted_at, type, likes, comments, views, shares, sponsored, caption, brand, hashtags, mentions)
      VALUES (?, ?, TIMESTAMP '2026-11-20 12:00:00', 'reel', 100, 5, 2000, 1, ?, ?, ?, [?, 'mealprep'], ['zqbrand'])`,
      [c.creator_id, post, sponsored, `#${tag} #mealprep with @zqbrand`, brand, tag],
    );
  }
  await t.store.run(
    `UPDATE creators SET sponsored_posts = 2,
      sponsored_pct = 66.67, posts_per_week = 0.23, last_posted_at = TIMESTAMP '2026-11-20 12:00:00',
      engagement_rate_sponsored = 4.2, engagement_rate_organic = 2.1, has_contact = false,
      updated_at = now()::TIMESTAMP WHERE creator_id = ?`,
    [c.creator_id],
  );
  await setContentLists(
    t.store,
    c.creator_id,
    { hashtags: "[?, 'mealprep']", mentions: "['zqbrand']", brands: "['@zqbrand']", linked_platforms: '[]' },
    [tag],
  );
  return c;
}

/** Resolves when the page changes route and the new page has drawn (`same`: the route stays, it is drawn again). */
async function waitAfterHashChange(ready: string, same = false): Promise<void> {
  const before = page.url();
  await page.evaluate(() => document.getElementById('main')?.removeAttribute('data-ready'));
  if (!same) await page.waitForFunction((u) => location.href !== u, {}, before);
  await waitReady(page, ready);
}

async function waitForDownload(): Promise<string> {
  let done: string | undefined;
  await eventually(
    () => (done = readdirSync(downloads).find((f) => !f.endsWith('.crdownload'))) !== undefined,
    10_000,
    'the export to download',
  );
  return done ?? '';
}
