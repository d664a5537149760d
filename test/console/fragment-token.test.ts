/**
 * A link with `#token=…` signs a fresh tab in, but never swaps the session a tab already has for
 * the link's without the user saying so (a crafted link would otherwise make the user act as its
 * sender). Either way the token leaves the address bar at once.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Browser,
  evaluate,
  launchBrowser,
  openPage,
  type Page,
  problemsOf,
  screenshot,
  textOf,
  waitFor,
  waitForView,
} from './browser.js';
import {
  ADMIN_PASSWORD,
  type ConsoleFixture,
  publishShots,
  shotsDir,
  startConsoleFixture,
} from './fixture.js';

const READER_PASSWORD = 'console-reader-Secret!';

let fx: ConsoleFixture;
let browser: Browser;
let page: Page;
let shots: string;
let adminToken: string;
let readerToken: string;

const text = (selector: string) => textOf(page, selector);
const stored = () => evaluate<string | null>(page, "sessionStorage.getItem('rsc.console.token')");
const groupUrl = (token: string) =>
  `${fx.url}/console/streams/${fx.p}/groups/${fx.p}#token=${encodeURIComponent(token)}`;

async function tokenOf(username: string, password: string): Promise<string> {
  const res = await fx.call('POST', '/coord/v1/auth/login', { username, password });
  expect(res.status).toBe(200);
  return res.body.accessToken;
}

beforeAll(async () => {
  [fx, browser, shots] = await Promise.all([
    startConsoleFixture({ credentials: true, users: `reader:${READER_PASSWORD}:READ` }),
    launchBrowser(),
    shotsDir(),
  ]);
  adminToken = await tokenOf('admin', ADMIN_PASSWORD);
  readerToken = await tokenOf('reader', READER_PASSWORD);
  page = await openPage(browser);
});

afterAll(async () => {
  await browser?.close();
  await fx?.close();
  if (shots) await publishShots(shots);
});

describe('console > #token= with a session already open', () => {
  it('signs a tab without a session in and removes the token from the address bar', async () => {
    await page.goto(`${fx.url}/console#token=${encodeURIComponent(adminToken)}`);
    await waitForView(page, 'groups');
    expect(await text('#who')).toBe('Signed in as admin');
    expect(await stored()).toBe(adminToken);
    expect(await page.evaluate('location.href')).toBe(`${fx.url}/console`);
    expect(await page.evaluate("document.querySelector('#session-offer')")).toBeNull();
  });

  it("keeps the open session, hides the link's token and offers to switch", async () => {
    await page.goto(groupUrl(readerToken));
    await waitForView(page, 'group');
    expect(await page.evaluate('location.hash')).toBe('');
    expect(await page.evaluate('location.href')).not.toContain(readerToken);
    expect(await text('#who')).toBe('Signed in as admin');
    expect(await stored()).toBe(adminToken);
    await waitFor(page, "document.querySelector('#session-offer')", 'the offer to switch sessions');
    expect(await text('#session-offer')).toContain('reader');
    await screenshot(page, join(shots, '11-session-offer.png'));

    // It stays while the page refreshes and navigates, until answered.
    await waitForView(page, 'group', 2);
    expect(await page.evaluate("document.querySelector('#session-offer')")).not.toBeNull();
  });

  it('forgets the link when the user keeps the current session', async () => {
    await page.click('#session-keep');
    expect(await page.evaluate("document.querySelector('#session-offer')")).toBeNull();
    await page.goto(`${fx.url}/console`);
    await waitForView(page, 'groups');
    expect(await text('#who')).toBe('Signed in as admin');
    expect(await stored()).toBe(adminToken);
    expect(await page.evaluate("document.querySelector('#session-offer')")).toBeNull();
  });

  it("switches to the link's session only when the user asks", async () => {
    await page.goto(groupUrl(readerToken));
    await waitFor(page, "document.querySelector('#session-switch')", 'the offer to switch sessions');
    expect(await stored()).toBe(adminToken);
    await page.click('#session-switch');
    await waitFor(
      page,
      "document.querySelector('#who')?.innerText === 'Signed in as reader'",
      "the link's session",
    );
    await waitForView(page, 'group');
    expect(await stored()).toBe(readerToken);
    expect(await page.evaluate("document.querySelector('#session-offer')")).toBeNull();
  });

  it('says nothing when the link carries the session the tab already has', async () => {
    await page.goto(`${fx.url}/console#token=${encodeURIComponent(readerToken)}`);
    await waitForView(page, 'groups');
    expect(await page.evaluate('location.hash')).toBe('');
    expect(await page.evaluate("document.querySelector('#session-offer')")).toBeNull();
    expect(await text('#who')).toBe('Signed in as reader');
  });

  it('drops a link whose token is not valid and keeps the session', async () => {
    await page.goto(`${fx.url}/console#token=forged.token`);
    await waitForView(page, 'groups');
    expect(await page.evaluate('location.hash')).toBe('');
    expect(await text('#who')).toBe('Signed in as reader');
    expect(await stored()).toBe(readerToken);
    await waitFor(page, "document.querySelector('#session-offer')", 'the notice about the link');
    expect(await text('#session-offer')).toContain('not valid');
    expect(await page.evaluate("document.querySelector('#session-switch')")).toBeNull();
    await page.click('#session-keep');
  });

  it('raised no script error or CSP violation', () => {
    expect(problemsOf(page)).toEqual([]);
  });
});
