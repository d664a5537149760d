/**
 * The group page's lag and throughput charts (uPlot, bundled) and its error states: the charts
 * (totals and lag per shard) fill from the page's own reads, records/s follow a burst of writes
 * and reads, and a group the coordinator does not know ends every panel's loading state with the
 * error.
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
import { type ConsoleFixture, publishShots, shotsDir, startConsoleFixture } from './fixture.js';

let fx: ConsoleFixture;
let browser: Browser;
let page: Page;
let shots: string;

const attr = (name: string) =>
  evaluate<string | null>(page, `document.querySelector('#charts').getAttribute('${name}')`);
const refreshes = async () => Number(await page.evaluate("document.body.getAttribute('data-refreshes')"));

beforeAll(async () => {
  [fx, browser, shots] = await Promise.all([
    startConsoleFixture({ credentials: false }),
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

describe('console > lag and throughput charts', () => {
  it('draws total lag and records/s from the reads this tab made', async () => {
    await page.goto(`${fx.url}/console/streams/${fx.p}/groups/${fx.p}`);
    await waitForView(page, 'group', 2);
    expect(await evaluate<number>(page, "document.querySelectorAll('#chart-lag canvas').length")).toBe(1);
    expect(await evaluate<number>(page, "document.querySelectorAll('#chart-rate canvas').length")).toBe(1);
    expect(Number(await attr('data-samples'))).toBeGreaterThanOrEqual(2);
    // The fixture's backlog: lag 24 + 3 + 1; nothing moves, so both rates are 0.
    expect(await attr('data-last-lag')).toBe('28');
    expect(await attr('data-last-consumed')).toBe('0');
    expect(await textOf(page, '#chart-lag .u-legend')).toContain('Lag');
    expect(await textOf(page, '#chart-rate .u-legend')).toContain('Consumed');
    // One line per shard (four: all drawn), labelled by shard index.
    expect(await evaluate<number>(page, "document.querySelectorAll('#chart-shards canvas').length")).toBe(1);
    expect(await evaluate<string>(page, "document.querySelector('#chart-shards').dataset.shards")).toBe(
      '0,1,2,3',
    );
    expect(await textOf(page, '#chart-shards .u-legend')).toMatch(/:0[\s\S]*:3/);
  });

  it('shows a burst of writes and reads as records/s', async () => {
    await page.click('#refresh-toggle');
    await waitFor(page, "!document.body.hasAttribute('data-busy')", 'the last refresh to finish');
    const before = await refreshes();
    for (let i = 0; i < 40; i++) await fx.redis.xadd(`${fx.p}:3`, '*', 'payload', `burst ${i}`);
    await fx.redis.xreadgroup('GROUP', fx.p, 'raw-reader', 'COUNT', 30, 'STREAMS', `${fx.p}:3`, '>');
    await page.click('#refresh-now');
    await waitFor(page, `Number(document.body.getAttribute('data-refreshes')) > ${before}`, 'the refresh');
    expect(Number(await attr('data-last-produced'))).toBeGreaterThan(0);
    expect(Number(await attr('data-last-consumed'))).toBeGreaterThan(0);
    // 40 written, 30 read: lag grows by 10.
    expect(await attr('data-last-lag')).toBe('38');
    await screenshot(page, join(shots, '11-group-charts.png'));
    await page.click('#refresh-toggle');
    expect(problemsOf(page)).toEqual([]);
  });

  it('keeps the history when the operator leaves the group and comes back', async () => {
    const samples = Number(await attr('data-samples'));
    await page.click('a.messages-link');
    await waitForView(page, 'messages');
    await page.goBack();
    await waitForView(page, 'group');
    expect(Number(await attr('data-samples'))).toBeGreaterThan(samples);
  });
});

describe('console > errors end loading states', () => {
  it('shows the error in every panel of a group the coordinator does not know', async () => {
    await page.goto(`${fx.url}/console/streams/${fx.p}/groups/no-such-group`);
    await waitFor(page, "document.querySelector('#group-error .alert')", 'the group error');
    expect(await textOf(page, '#group-error')).toContain('404 GROUP_NOT_FOUND');
    expect(await textOf(page, '#view')).not.toContain('Loading…');
    for (const panel of ['#shards', '#members', '#migration', '#charts']) {
      expect(await textOf(page, panel)).toContain('GROUP_NOT_FOUND');
    }
    await screenshot(page, join(shots, '12-unknown-group.png'));
  });

  it('shows the error on the message page of a group the coordinator does not know', async () => {
    await page.goto(`${fx.url}/console/streams/${fx.p}/groups/no-such-group/messages`);
    await waitFor(page, "document.querySelector('#messages .alert')", 'the messages error');
    expect(await textOf(page, '#messages')).toContain('GROUP_NOT_FOUND');
    expect(await textOf(page, '#view')).not.toContain('Loading…');
    expect(problemsOf(page)).toEqual([]);
  });
});
