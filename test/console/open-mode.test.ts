/**
 * The console against a coordinator without credentials (open mode): no login step.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Browser,
  launchBrowser,
  openPage,
  type Page,
  problemsOf,
  screenshot,
  waitForView,
} from './browser.js';
import { type ConsoleFixture, publishShots, shotsDir, startConsoleFixture } from './fixture.js';

let fx: ConsoleFixture;
let browser: Browser;
let page: Page;
let shots: string;

beforeAll(async () => {
  [fx, browser, shots] = await Promise.all([
    startConsoleFixture({ credentials: false }),
    launchBrowser(),
    shotsDir(),
  ]);
  page = await openPage(browser, 1024, 768);
});

afterAll(async () => {
  await browser?.close();
  await fx?.close();
  if (shots) await publishShots(shots);
});

describe('console > open mode', () => {
  it('shows the groups without asking for credentials', async () => {
    await page.goto(`${fx.url}/console`);
    await waitForView(page, 'groups');
    expect(await page.evaluate("document.querySelector('#who').innerText")).toBe('Open mode');
    expect(await page.evaluate(`document.querySelectorAll('tr[data-group="${fx.p}/${fx.p}"]').length`)).toBe(
      1,
    );
    expect(await page.evaluate("document.querySelector('#logout')")).toBeNull();
    await screenshot(page, join(shots, '09-open-mode-groups.png'));
  });

  it('opens a group in a narrow window', async () => {
    await page.goto(`${fx.url}/console/streams/${fx.p}/groups/${fx.p}`);
    await waitForView(page, 'group');
    expect(await page.evaluate('document.querySelectorAll("#shard-grid .shard").length')).toBe(4);
    expect(await page.evaluate('document.querySelectorAll("tr[data-member]").length')).toBe(2);
    await screenshot(page, join(shots, '10-open-mode-group-narrow.png'));
    expect(problemsOf(page)).toEqual([]);
  });
});
