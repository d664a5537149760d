/**
 * Headless Chromium for the console's end-to-end tests: puppeteer-core driving Debian's
 * `/usr/bin/chromium` over a pipe, plus the few waits the console's `data-*` attributes make
 * possible (`data-view`, `data-refreshes`).
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

export type { Browser, Page } from 'puppeteer-core';

/** Where Debian's `chromium` package installs the browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Something the page reported that a test should see: an exception or an error log line. */
export interface PageProblem {
  kind: 'exception' | 'log';
  text: string;
}

const problemsByPage = new WeakMap<Page, PageProblem[]>();

/** Fails with an actionable message when Chromium is missing (never skips). */
export async function assertChromiumInstalled(): Promise<void> {
  try {
    await access(CHROMIUM_PATH, constants.X_OK);
  } catch {
    throw new Error(
      `${CHROMIUM_PATH} not found: the console tests need Debian's chromium (apt-get update && apt-get install -y chromium; .ci/run does this)`,
    );
  }
}

/** Starts headless Chromium with a fresh profile (removed again by `browser.close()`). */
export async function launchBrowser(): Promise<Browser> {
  await assertChromiumInstalled();
  return puppeteer.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    pipe: true,
    // Root in CI needs no sandbox; nothing may phone home during a test.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-dev-shm-usage', '--hide-scrollbars'],
    defaultViewport: null,
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
}

/** Opens a tab (own sessionStorage) with the given viewport; its problems are collected. */
export async function openPage(browser: Browser, width = 1366, height = 900): Promise<Page> {
  const page = await browser.newPage();
  const problems: PageProblem[] = [];
  problemsByPage.set(page, problems);
  page.on('pageerror', (e) => {
    problems.push({ kind: 'exception', text: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  });
  // Log entries carry their source (puppeteer's console event does not): a 401 answer is logged
  // as a failed network load, which the console expects; CSP violations must still count.
  const cdp = await page.createCDPSession();
  cdp.on('Log.entryAdded', ({ entry }) => {
    if (entry.level === 'error' && entry.source !== 'network')
      problems.push({ kind: 'log', text: entry.text });
  });
  await cdp.send('Log.enable');
  await page.setViewport({ width, height, deviceScaleFactor: 1 });
  return page;
}

/** Exceptions and error-level log lines (CSP violations included) the page raised so far. */
export function problemsOf(page: Page): PageProblem[] {
  return problemsByPage.get(page) ?? [];
}

/** Polls `expression` in the page until it is truthy; on timeout reports what the page shows. */
export async function waitFor(
  page: Page,
  expression: string,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  try {
    await page.waitForFunction(`Boolean(${expression})`, { timeout: timeoutMs, polling: 100 });
  } catch (err) {
    const shown = await page
      .evaluate(
        "document.body ? document.body.getAttribute('data-view') + ' | ' + document.body.innerText.slice(0, 1500) : ''",
      )
      .catch((e: Error) => e.message);
    throw new Error(
      `timed out after ${timeoutMs} ms waiting for ${what} (${expression}); page: ${String(shown)}`,
      { cause: err },
    );
  }
}

/** Waits until the console has rendered `view` with data at least `refreshes` times. */
export function waitForView(page: Page, view: string, refreshes = 1, timeoutMs = 10_000): Promise<void> {
  return waitFor(
    page,
    `document.body.getAttribute('data-view') === ${JSON.stringify(view)} && Number(document.body.getAttribute('data-refreshes') || 0) >= ${refreshes}`,
    `view ${view} after ${refreshes} refresh(es)`,
    timeoutMs,
  );
}

/** The `innerText` of the first element `selector` matches ('' when none does). */
export function textOf(page: Page, selector: string): Promise<string> {
  return page.evaluate(
    `document.querySelector(${JSON.stringify(selector)})?.innerText ?? ''`,
  ) as Promise<string>;
}

/** Clears the input `selector` and types `text` into it as keyboard input. */
export async function typeInto(page: Page, selector: string, text: string): Promise<void> {
  await page.locator(selector).fill(text);
}

/** Writes a PNG of the page from the top (up to 4000 px tall) to `path`. */
export async function screenshot(page: Page, path: string): Promise<void> {
  // From the top, or the sticky header is painted where the page happens to be scrolled.
  await page.evaluate('window.scrollTo(0, 0)');
  const vp = page.viewport() ?? { width: 1366, height: 900 };
  const height = Math.min(
    4000,
    Math.max(vp.height, Math.ceil(Number(await page.evaluate('document.documentElement.scrollHeight')))),
  );
  await page.screenshot({
    path: path as `${string}.png`,
    clip: { x: 0, y: 0, width: vp.width, height },
    captureBeyondViewport: true,
  });
}

/** Evaluates `expression` in the page (awaiting promises) and returns its JSON value as `T`. */
export function evaluate<T>(page: Page, expression: string): Promise<T> {
  return page.evaluate(expression) as Promise<T>;
}
