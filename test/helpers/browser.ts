import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/** Where Debian's `chromium` package puts the browser; CHROMIUM_PATH points elsewhere. */
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/**
 * The path of a Chromium to drive. Missing is a failure, never a skip: the console's
 * tests are part of `npm test`, and `.ci/run` installs the browser when it is absent.
 */
export function chromiumPath(): string {
  const given = process.env['CHROMIUM_PATH'];
  if (given && existsSync(given)) return given;
  const found = CANDIDATES.find((p) => existsSync(p)) ?? onPath('chromium');
  if (!found) {
    throw new Error(
      'Chromium is not installed, and the console tests need a real browser: run `apt-get install chromium` ' +
        "(Debian's package; .ci/run does this) or set CHROMIUM_PATH to a Chromium binary.",
    );
  }
  return found;
}

function onPath(name: string): string | undefined {
  try {
    return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Where Debian's `firefox-esr` package puts Firefox; FIREFOX_PATH points elsewhere. */
export function firefoxPath(): string {
  const given = process.env['FIREFOX_PATH'];
  if (given && existsSync(given)) return given;
  const found =
    ['/usr/bin/firefox-esr', '/usr/bin/firefox'].find((p) => existsSync(p)) ??
    onPath('firefox-esr') ??
    onPath('firefox');
  if (!found) {
    throw new Error(
      'Firefox is not installed, and the console is tested in Firefox too: run `apt-get install firefox-esr` ' +
        "(Debian's package; .ci/run does this) or set FIREFOX_PATH to a Firefox binary.",
    );
  }
  return found;
}

/** A headless Firefox, driven over WebDriver BiDi (puppeteer-core downloads no browser of its own). */
export function launchFirefox(): Promise<Browser> {
  // the window's own size: Firefox ESR's BiDi has no viewport emulation command for puppeteer to send
  return puppeteer.launch({
    browser: 'firefox',
    executablePath: firefoxPath(),
    headless: true,
    defaultViewport: null,
    args: ['--width=1280', '--height=900'],
  });
}

/** A headless Chromium (no sandbox: CI runs as root, where Chromium's sandbox refuses to start). */
export function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run', '--disable-extensions'],
  });
}

/** A page plus every problem it reported: console errors, uncaught exceptions, CSP violations, failed requests. */
export interface WatchedPage {
  page: Page;
  problems: string[];
}

/**
 * Opens a tab that records what a user would never want to see. CSP violations
 * are caught from the `securitypolicyviolation` event (installed before any page
 * script runs) as well as from the console, where Chromium also reports them.
 */
export async function watchedPage(browser: Browser, viewport = { width: 1280, height: 900 }): Promise<WatchedPage> {
  const page = await browser.newPage();
  const problems: string[] = [];
  await page.setViewport(viewport);
  await page.exposeFunction('__reportViolation', (text: string) => {
    problems.push(`CSP violation: ${text}`);
  });
  await page.evaluateOnNewDocument(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { __reportViolation(t: string): void }).__reportViolation(
        `${e.violatedDirective} blocked ${e.blockedURI}`,
      );
    });
  });
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  page.on('pageerror', (error) => {
    problems.push(`page error: ${error instanceof Error ? error.message : String(error)}`);
  });
  page.on('requestfailed', (req) => {
    // Chromium reports a fetch answered 204 No Content, and a blob: download, as "aborted": neither failed
    const benign = req.url().startsWith('blob:') || req.response()?.status() === 204;
    if (!benign) problems.push(`request failed: ${req.method()} ${req.url()} ${req.failure()?.errorText ?? ''}`);
  });
  return { page, problems };
}

/**
 * Goes to a console route and waits for the page to say it has drawn (`data-ready`
 * on <main>); answers the milliseconds from the click-equivalent to drawn.
 */
export async function visit(page: Page, hash: string, ready: string, timeoutMs = 10_000): Promise<number> {
  const started = Date.now();
  await page.evaluate((h) => {
    document.getElementById('main')?.removeAttribute('data-ready');
    location.hash = h;
  }, hash);
  await waitReady(page, ready, timeoutMs);
  return Date.now() - started;
}

/** Waits until the console has drawn the named page. */
export async function waitReady(page: Page, ready: string, timeoutMs = 10_000): Promise<void> {
  await page.waitForFunction(
    (name) => document.getElementById('main')?.dataset['ready'] === name,
    { timeout: timeoutMs },
    ready,
  );
}

/**
 * For each canvas in the page: its drawn size and how many of its pixels are not
 * blank, so a test can tell a chart that drew data from an empty box.
 */
export function canvasInk(page: Page): Promise<Array<{ width: number; height: number; inked: number; label: string }>> {
  return page.$$eval('canvas', (canvases) =>
    canvases.map((c) => {
      const ctx = c.getContext('2d');
      let inked = 0;
      if (ctx && c.width > 0 && c.height > 0) {
        const data = ctx.getImageData(0, 0, c.width, c.height).data;
        for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) inked++;
      }
      return { width: c.clientWidth, height: c.clientHeight, inked, label: c.getAttribute('aria-label') ?? '' };
    }),
  );
}
