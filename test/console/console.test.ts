/**
 * The web console end to end: a real coordinator with credentials, a stream with two members and
 * records, and headless Chromium loading each page. Every page is also saved as a screenshot.
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
  typeInto,
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

let fx: ConsoleFixture;
let browser: Browser;
let page: Page;
let shots: string;

const text = (selector: string) => textOf(page, selector);
const count = (selector: string) =>
  evaluate<number>(page, `document.querySelectorAll(${JSON.stringify(selector)}).length`);
const groupPath = () => `/console/streams/${fx.p}/groups/${fx.p}`;

beforeAll(async () => {
  [fx, browser, shots] = await Promise.all([
    startConsoleFixture({ credentials: true }),
    launchBrowser(),
    shotsDir(),
  ]);
  page = await openPage(browser);
});

afterAll(async () => {
  await browser?.close();
  await fx?.close();
  if (shots) await publishShots(shots);
});

describe('console > sign-in', () => {
  it('asks for credentials, refuses a wrong password and signs in with the form', async () => {
    await page.goto(`${fx.url}/console`);
    await waitFor(page, "document.body.getAttribute('data-view') === 'login'", 'the login form');
    await screenshot(page, join(shots, '01-login.png'));

    await typeInto(page, '#login-username', 'admin');
    await typeInto(page, '#login-password', 'not-the-password');
    await page.click('#login-submit');
    await waitFor(page, "document.querySelector('#login-error .alert')", 'the login error');
    expect(await text('#login-error')).toContain('Wrong username or password');
    expect(await page.evaluate("sessionStorage.getItem('rsc.console.token')")).toBeNull();

    await typeInto(page, '#login-password', ADMIN_PASSWORD);
    await page.click('#login-submit');
    await waitForView(page, 'groups');
    expect(await page.evaluate("sessionStorage.getItem('rsc.console.token')")).toMatch(/^[\w-]+\.[\w-]+$/);
    expect(await text('#who')).toBe('Signed in as admin');
  });
});

describe('console > groups', () => {
  it('lists the group with its state, shards, members and health', async () => {
    const row = `tr[data-group="${fx.p}/${fx.p}"]`;
    expect(await count(row)).toBe(1);
    const cells = await evaluate<string[]>(
      page,
      `[...document.querySelectorAll('${row} td')].map((td) => td.innerText.trim())`,
    );
    const g = (await fx.call('GET', `/coord/v1/monitoring/streams/${fx.p}/groups/${fx.p}`)).body;
    expect(cells).toEqual([
      fx.p,
      fx.p,
      'STABLE',
      '4',
      '2',
      '4 / 4',
      // Lag: 24 on shard 0, 3 on shard 1, 1 on shard 2; pending: the 2 unacknowledged on shard 0.
      '28',
      '2',
      `${g.groupEpoch} / ${g.assignmentEpoch}`,
      String(g.metadataVersion),
      '—',
    ]);
    expect(await text('#health-status')).toContain('UP');
    expect(await text('#health-redis')).toContain('UP');
    // One page holds every group of the fixture: counted, and no other page to go to.
    expect(await text('#groups-info')).toMatch(/^Page 1 · groups 1–\d+ of \d+$/);
    expect(await text('#group-count')).toMatch(/\d/);
    expect(
      await evaluate<boolean[]>(
        page,
        `['#groups-first', '#groups-prev', '#groups-next'].map((s) => document.querySelector(s).disabled)`,
      ),
    ).toEqual([true, true, true]);
    await screenshot(page, join(shots, '02-groups.png'));
  });
});

describe('console > group view', () => {
  it('shows every shard with target and current owner, lag and pending, and the members', async () => {
    await page.click(`tr[data-group="${fx.p}/${fx.p}"] a.group-link`);
    await waitForView(page, 'group');
    expect(await page.evaluate('location.pathname')).toBe(groupPath());

    expect(await count('#shard-grid .shard')).toBe(4);
    const owners = await evaluate<Record<string, { target: string; current: string }>>(
      page,
      `
      Object.fromEntries([...document.querySelectorAll('#shard-grid .shard')].map((el) => {
        const dd = [...el.querySelectorAll('dt')].reduce((o, dt) => (o[dt.innerText] = dt.nextElementSibling.innerText.trim(), o), {});
        return [el.dataset.shard, { target: dd.Target, current: dd.Current }];
      }))`,
    );
    const expected: Record<string, { target: string; current: string }> = {};
    for (const m of fx.members) {
      for (const s of m.owned) expected[String(s)] = { target: m.id, current: m.id };
    }
    expect(owners).toEqual(expected);
    expect(await text('.shard[data-shard="0"] .lag')).toBe('24');
    expect(await text('.shard[data-shard="0"] .pending-count')).toBe('2');
    expect(await text('.shard[data-shard="3"] .lag')).toBe('0');
    expect(await count('.shard .badge.warn')).toBe(0);
    expect(await text('#group-lag')).toBe('Total lag\n28');

    expect(
      await page.evaluate(
        `[...document.querySelectorAll('tr[data-member] .member-id')].map((e) => e.innerText)`,
      ),
    ).toEqual(['worker-a', 'worker-b']);
    // memberLeaseExpiresAt − now, from a 120 s lease renewed moments ago.
    const lease = await text('tr[data-member="worker-a"] .lease-left');
    expect(lease).toMatch(/^(1\d\d|\d\d?)\.\d s left$|^\d m \d+ s left$/);
    expect(await text('#no-migration')).toBe('No active migration. The stream has 4 shards.');
    await screenshot(page, join(shots, '03-group.png'));

    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
    await screenshot(page, join(shots, '04-group-dark.png'));
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
  });

  it('counts lease time down between refreshes', async () => {
    const read = () => text('tr[data-member="worker-b"] .lease-left');
    const first = await read();
    await waitFor(
      page,
      `document.querySelector('tr[data-member="worker-b"] .lease-left').innerText !== ${JSON.stringify(first)}`,
      'the lease countdown to move',
    );
  });

  it('refreshes on its own and stops while paused', async () => {
    const now = async () => Number(await page.evaluate("document.body.getAttribute('data-refreshes')"));
    const before = await now();
    await waitFor(
      page,
      `Number(document.body.getAttribute('data-refreshes')) > ${before}`,
      'an automatic refresh',
    );

    await page.click('#refresh-toggle');
    expect(await page.evaluate("document.body.getAttribute('data-paused')")).toBe('true');
    expect(await text('#refresh-toggle')).toBe('Resume auto-refresh');
    // A refresh already under way may still land; none may start after it.
    await waitFor(page, "!document.body.hasAttribute('data-busy')", 'the last refresh to finish');
    const paused = await now();
    await new Promise((r) => setTimeout(r, 2600));
    expect(await now()).toBe(paused);

    await page.click('#refresh-toggle');
    await waitFor(
      page,
      `Number(document.body.getAttribute('data-refreshes')) > ${paused}`,
      'refreshes to resume',
    );
  });
});

describe('console > message browser', () => {
  const ids = () =>
    evaluate<string[]>(
      page,
      `[...document.querySelectorAll('tr[data-record-id]')].map((r) => r.dataset.recordId)`,
    );

  it('pages a shard newest first, forward and back', async () => {
    await page.click('a.messages-link');
    await waitForView(page, 'messages');
    expect(await page.evaluate('document.querySelector("#msg-shard").value')).toBe('0');
    const newest = [...fx.shard0].reverse();
    expect(await ids()).toEqual(newest.slice(0, 25));
    expect(await text(`tr[data-record-id="${fx.shard0[29]}"] .payload`)).toBe('{"order":29,"sku":"SKU-29"}');
    await screenshot(page, join(shots, '05-messages.png'));

    await page.click('#msg-next');
    await waitFor(page, `document.querySelectorAll('tr[data-record-id]').length === 5`, 'the second page');
    expect(await ids()).toEqual(newest.slice(25));
    expect(await page.evaluate('document.querySelector("#msg-next").disabled')).toBe(true);
    expect(await text('#msg-info')).toContain('end of stream');

    await page.click('#msg-prev');
    await waitFor(
      page,
      `document.querySelectorAll('tr[data-record-id]').length === 25`,
      'the first page again',
    );
    expect(await ids()).toEqual(newest.slice(0, 25));
  });

  it('pages oldest first and switches shards', async () => {
    await page.select('#msg-order', 'FORWARD');
    await waitFor(
      page,
      `document.querySelector('tr[data-record-id]')?.dataset.recordId === ${JSON.stringify(fx.shard0[0])}`,
      'oldest-first order',
    );
    expect(await ids()).toEqual(fx.shard0.slice(0, 25));
    await page.click('#msg-next');
    await waitFor(page, `document.querySelectorAll('tr[data-record-id]').length === 5`, 'the last page');
    expect(await ids()).toEqual(fx.shard0.slice(25));

    await page.select('#msg-shard', '2');
    await waitFor(page, `document.querySelectorAll('tr[data-record-id]').length === 1`, 'shard 2');
    expect(await text('tr[data-record-id] .fields')).toContain('kind=fields-only');
    expect(await page.evaluate('location.search')).toBe('?direction=FORWARD&shard=2');
    await page.select('#msg-shard', '3');
    await waitFor(page, "document.querySelector('#no-messages')", 'the empty shard');
  });
});

describe('console > token in the URL fragment', () => {
  it('opens a deep link with #token=… in a fresh tab and removes the token from the address bar', async () => {
    const login = await fx.call('POST', '/coord/v1/auth/login', {
      username: 'admin',
      password: ADMIN_PASSWORD,
    });
    expect(login.status).toBe(200);
    const tab = await openPage(browser);
    try {
      await tab.goto(`${fx.url}${groupPath()}#token=${encodeURIComponent(login.body.accessToken)}`);
      await waitForView(tab, 'group');
      expect(await tab.evaluate('location.hash')).toBe('');
      expect(await tab.evaluate('document.querySelectorAll("#shard-grid .shard").length')).toBe(4);
      expect(problemsOf(tab)).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it('falls back to the login form when the fragment token is not valid', async () => {
    const tab = await openPage(browser);
    try {
      await tab.goto(`${fx.url}/console#token=forged.token`);
      await waitFor(tab, "document.body.getAttribute('data-view') === 'login'", 'the login form');
      expect(await tab.evaluate("document.querySelector('#login-error').innerText")).toContain('expired');
    } finally {
      await tab.close();
    }
  });
});

describe('console > sign-out', () => {
  it('forgets the token and returns to the login form', async () => {
    await page.click('#logout');
    await waitFor(page, "document.body.getAttribute('data-view') === 'login'", 'the login form');
    expect(await page.evaluate("sessionStorage.getItem('rsc.console.token')")).toBeNull();
    await page.goto(`${fx.url}${groupPath()}`);
    await waitFor(page, "document.body.getAttribute('data-view') === 'login'", 'the login form again');
  });

  it('raised no script error or CSP violation on any page', () => {
    expect(problemsOf(page)).toEqual([]);
  });
});
