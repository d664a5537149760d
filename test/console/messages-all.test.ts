/**
 * The message browser across shards: every consumable shard merged by record id (newest or
 * oldest first, paged), and the shards a scale-in removed still offered, marked draining, while
 * consumers may still read them (docs/protocol.md#resharding).
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
  waitFor,
  waitForView,
} from './browser.js';
import { type ConsoleFixture, publishShots, shotsDir, startConsoleFixture } from './fixture.js';

let fx: ConsoleFixture;
let browser: Browser;
let page: Page;
let shots: string;
/** Every record of the fixture as `shard/id`, oldest first across shards. */
let merged: string[];
/** The same, newest first; equal ids (writes in the same millisecond) keep the lower shard first. */
let newest: string[];

const rows = () =>
  evaluate<string[]>(
    page,
    `[...document.querySelectorAll('tr[data-record-id]')].map((r) => r.dataset.shard + '/' + r.dataset.recordId)`,
  );
const options = () =>
  evaluate<string[]>(
    page,
    `[...document.querySelectorAll('#msg-shard option')].map((o) => o.value + ' ' + o.text)`,
  );

/** `a` before `b` in stream id order. */
function byStreamId(a: string, b: string): number {
  const [am, as] = a.split('-').map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split('-').map(BigInt) as [bigint, bigint];
  return am === bm ? Number(as - bs) : am < bm ? -1 : 1;
}

beforeAll(async () => {
  [fx, browser, shots] = await Promise.all([
    startConsoleFixture({ credentials: false }),
    launchBrowser(),
    shotsDir(),
  ]);
  page = await openPage(browser);
  const all: Array<[number, string]> = [];
  for (const shard of [0, 1, 2, 3]) {
    for (const [id] of await fx.redis.xrange(`${fx.p}:${shard}`, '-', '+')) all.push([shard, id]);
  }
  const label = ([s, id]: [number, string]) => `${s}/${id}`;
  merged = [...all].sort((a, b) => byStreamId(a[1], b[1]) || a[0] - b[0]).map(label);
  newest = [...all].sort((a, b) => byStreamId(b[1], a[1]) || a[0] - b[0]).map(label);
});

afterAll(async () => {
  await browser?.close();
  await fx?.close();
  if (shots) await publishShots(shots);
});

describe('console > messages of all shards', () => {
  it('merges every consumable shard by id, newest first, and pages on', async () => {
    expect(merged).toHaveLength(34);
    await page.goto(`${fx.url}/console/streams/${fx.p}/groups/${fx.p}/messages`);
    await waitForView(page, 'messages');
    expect(await options()).toEqual([
      'all All shards (4, merged by id)',
      ...[0, 1, 2, 3].map((i) => `${i} :${i} (${fx.p}:${i})`),
    ]);
    await page.select('#msg-shard', 'all');
    await waitFor(
      page,
      "document.querySelector('th')?.innerText === '#' && document.querySelectorAll('td .record-shard').length > 0",
      'the merged page',
    );
    expect(await page.evaluate('location.search')).toBe('?direction=BACKWARD&shard=all');
    expect(await rows()).toEqual(newest.slice(0, 25));
    expect(await page.evaluate("document.querySelector('#msg-info').innerText")).toContain(
      'records 1–25 of 34',
    );
    await screenshot(page, join(shots, '13-messages-all-shards.png'));

    await page.click('#msg-next');
    await waitFor(
      page,
      "document.querySelectorAll('tr[data-record-id]').length === 9",
      'the second merged page',
    );
    expect(await rows()).toEqual(newest.slice(25));
    expect(await page.evaluate('document.querySelector("#msg-next").disabled')).toBe(true);
  });

  it('merges oldest first after a reload of the address', async () => {
    await page.goto(`${fx.url}/console/streams/${fx.p}/groups/${fx.p}/messages?direction=FORWARD&shard=all`);
    await waitForView(page, 'messages');
    expect(await page.evaluate('document.querySelector("#msg-shard").value')).toBe('all');
    expect(await rows()).toEqual(merged.slice(0, 25));
  });
});

describe('console > messages of draining shards', () => {
  it('still offers the shards a scale-in removed, marked draining, and reads them', async () => {
    const scaled = await fx.call('POST', `/coord/v1/streams/${fx.p}/scale`, {
      targetShardCount: 2,
      requestedBy: 'test',
      reason: 'draining shards in the message browser',
    });
    expect(scaled.status).toBe(202);
    await page.goto(`${fx.url}/console/streams/${fx.p}/groups/${fx.p}/messages?shard=2`);
    await waitForView(page, 'messages');
    await waitFor(
      page,
      "[...document.querySelectorAll('#msg-shard option')].some((o) => o.text.endsWith('draining'))",
      'the draining shards in the list',
    );
    expect(await options()).toEqual([
      'all All shards (4, merged by id)',
      `0 :0 (${fx.p}:0)`,
      `1 :1 (${fx.p}:1)`,
      `2 :2 (${fx.p}:2) · draining`,
      `3 :3 (${fx.p}:3) · draining`,
    ]);
    expect(await page.evaluate('document.querySelector("#msg-shard").value')).toBe('2');
    expect(await rows()).toEqual(merged.filter((r) => r.startsWith('2/')));
    await screenshot(page, join(shots, '14-messages-draining-shard.png'));
    expect(problemsOf(page)).toEqual([]);
  });
});
