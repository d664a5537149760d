/**
 * The pending page, reached from the group page and the message browser: per consumable shard
 * what Redis holds delivered and not acknowledged (count, oldest id and age, also on the group
 * page's tiles) and which members report on it; the pending entries of a shard with their
 * holder and delivery count, a page at a time; the group's dead letters; per member what it last
 * reported holding; draining shards still listed (docs/protocol.md#resharding); an unknown group shows its error.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heartbeatBody } from '../support/stack.js';
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

const shardRows = () =>
  evaluate<string[]>(
    page,
    `[...document.querySelectorAll('#pending-shards tr[data-shard]')].map((r) => r.dataset.shard)`,
  );
const cell = (shard: number, cls: string) =>
  textOf(page, `#pending-shards tr[data-shard="${shard}"] .${cls}`);

/** Sends `member`'s next heartbeat with a progress report of every shard it owns. */
async function report(member: ConsoleFixture['members'][number], pendingCount: number): Promise<void> {
  const body = heartbeatBody(member.id, fx.p, { epoch: member.epoch, mv: member.mv, owned: member.owned });
  body.shardProgress = member.owned.map((shardIndex) => ({
    shard: { shardIndex },
    streamKey: `${fx.p}:${shardIndex}`,
    lastDeliveredId: `${shardIndex + 1}000-0`,
    lastAckedId: `${shardIndex + 1}000-0`,
    pendingCount,
    updatedAt: new Date().toISOString(),
  }));
  const res = await fx.call(
    'POST',
    `/coord/v1/streams/${fx.p}/groups/${fx.p}/members/${member.id}/heartbeat`,
    body,
  );
  expect(res.status).toBe(200);
}

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

describe('console > pending entries', () => {
  it('shows per shard the pending count and oldest entry Redis holds, and who reports on it', async () => {
    const [a, b] = fx.members as [ConsoleFixture['members'][number], ConsoleFixture['members'][number]];
    await report(a, 3);
    await report(b, 0);
    const pendingUrl = `${fx.url}/console/streams/${fx.p}/groups/${fx.p}/pending`;
    await page.goto(`${fx.url}/console/streams/${fx.p}/groups/${fx.p}/messages`);
    await waitForView(page, 'messages');
    expect(await evaluate<string>(page, "document.querySelector('a.pending-link').href")).toBe(pendingUrl);
    await page.goto(`${fx.url}/console/streams/${fx.p}/groups/${fx.p}`);
    await waitForView(page, 'group');
    expect(await evaluate<string>(page, "document.querySelector('a.pending-link').href")).toBe(pendingUrl);
    // The tiles tell how old the oldest pending entry is, where there is one.
    expect(await textOf(page, '.shard[data-shard="0"] .oldest-pending')).toMatch(/ s$/);
    expect(
      await evaluate<number>(
        page,
        'document.querySelectorAll(\'.shard[data-shard="1"] .oldest-pending\').length',
      ),
    ).toBe(0);
    await page.click('.shard[data-shard="0"] a.pending-count');
    await waitForView(page, 'pending');
    expect(page.url()).toBe(pendingUrl);
    expect(await shardRows()).toEqual(['0', '1', '2', '3']);
    // The fixture's raw reader read 6 records of shard 0 and acknowledged the first 4.
    expect(await cell(0, 'pending-count')).toBe('2');
    expect(await cell(0, 'oldest-id')).toBe(fx.shard0[4]);
    expect(await cell(0, 'oldest-age')).toMatch(/ s$/);
    expect(await cell(1, 'pending-count')).toBe('0');
    expect(await cell(1, 'oldest-age')).toBe('—');
    const owner0 = fx.members.find((m) => m.owned.includes(0))!;
    expect(await cell(0, 'owners')).toBe(owner0.id);
  });

  it("lists each member's last report per shard with what it holds", async () => {
    const [a, b] = fx.members as [ConsoleFixture['members'][number], ConsoleFixture['members'][number]];
    const rows = await evaluate<string[]>(
      page,
      `[...document.querySelectorAll('#pending-owners tr[data-member]')].map((r) => r.dataset.member + ':' + r.dataset.shard + ' ' + r.querySelector('.reported-pending').innerText)`,
    );
    expect(rows).toEqual([...a.owned.map((s) => `${a.id}:${s} 3`), ...b.owned.map((s) => `${b.id}:${s} 0`)]);
    expect(await textOf(page, `#pending-owners tr[data-member="${a.id}"]`)).toContain('ACTIVE');
    await screenshot(page, join(shots, '18-pending.png'));
    expect(problemsOf(page)).toEqual([]);
  });

  it('shows the pending entries of the shard with entries, marks those at 5 deliveries, and pages on', async () => {
    // Redelivered 4 more times: 5 deliveries, what the consumer SDK dead-letters by default.
    for (let i = 0; i < 4; i++)
      await fx.redis.call('XCLAIM', `${fx.p}:0`, fx.p, 'raw-reader', '0', fx.shard0[4]!);
    // 55 entries pending on shard 1: more than a page (50).
    for (let i = 0; i < 52; i++) await fx.redis.xadd(`${fx.p}:1`, '*', 'payload', `backlog ${i}`);
    await fx.redis.xreadgroup('GROUP', fx.p, 'stuck-reader', 'COUNT', 100, 'STREAMS', `${fx.p}:1`, '>');
    const rows = `#pending-entries tr[data-entry]`;
    await page.click('#pending-shards tr[data-shard="0"] button.show-entries');
    await waitFor(
      page,
      `document.querySelector('${rows}[data-entry="${fx.shard0[4]}"] .delivery-count')?.innerText === '5'`,
      'the redelivered entry',
    );
    expect(
      await evaluate<string[]>(page, `[...document.querySelectorAll('${rows}')].map((r) => r.dataset.entry)`),
    ).toEqual([fx.shard0[4], fx.shard0[5]]);
    expect(await textOf(page, `${rows}[data-entry="${fx.shard0[4]}"]`)).toContain('raw-reader');
    expect(
      await evaluate<string[]>(
        page,
        `[...document.querySelectorAll('${rows}.over-limit')].map((r) => r.dataset.entry)`,
      ),
    ).toEqual([fx.shard0[4]]);
    expect(await evaluate<boolean>(page, "document.querySelector('#entries-next').disabled")).toBe(true);
    // Nothing dead-lettered yet: the panel says so.
    expect(await textOf(page, '#dead-letters')).toContain(`No dead letters for this group in ${fx.p}:dlq.`);

    await page.select('#pending-entry-shard', '1');
    await waitFor(page, `document.querySelectorAll('${rows}').length === 50`, 'the first page of shard 1');
    expect(await textOf(page, `#pending-entries tr[data-entry]`)).toContain('stuck-reader');
    await waitFor(page, "!document.querySelector('#entries-next').disabled", 'the next-page control');
    await screenshot(page, join(shots, '20-pending-entries.png'));
    await page.click('#entries-next');
    await waitFor(page, `document.querySelectorAll('${rows}').length === 5`, 'the last page of shard 1');
    expect(await textOf(page, '#entries-info')).toContain('page 2');
    expect(await evaluate<boolean>(page, "document.querySelector('#entries-next').disabled")).toBe(true);
    expect(problemsOf(page)).toEqual([]);
  });

  it("lists the group's dead letters newest first, with where each came from and why", async () => {
    const add = (group: string, id: string, error: string) =>
      fx.redis.xadd(
        `${fx.p}:dlq`,
        '*',
        ...['dlq.stream', `${fx.p}:0`, 'dlq.id', id, 'dlq.group', group, 'dlq.member', `${group}-worker`],
        ...['dlq.deliveryCount', '5', 'dlq.error', error, 'payload', '<b>not markup</b>'],
      );
    const older = await add(fx.p, fx.shard0[0]!, 'Error: first failure');
    await add('another-group', fx.shard0[1]!, 'Error: not ours');
    const newer = await add(fx.p, fx.shard0[2]!, 'TypeError: <script>alert(1)</script>');
    await page.reload();
    await waitForView(page, 'pending');
    const rows = '#dead-letters tr[data-dead-letter]';
    await waitFor(page, `document.querySelectorAll('${rows}').length === 2`, 'the dead letters');
    expect(
      await evaluate<string[]>(
        page,
        `[...document.querySelectorAll('${rows}')].map((r) => r.dataset.deadLetter)`,
      ),
    ).toEqual([newer, older]);
    const first = await textOf(page, `${rows}[data-dead-letter="${newer}"]`);
    expect(first).toContain(fx.shard0[2]);
    expect(first).toContain(`${fx.p}-worker`);
    expect(first).toContain('TypeError: <script>alert(1)</script>');
    expect(await textOf(page, `${rows}[data-dead-letter="${newer}"] .dead-deliveries`)).toBe('5');
    expect(await evaluate<number>(page, "document.querySelectorAll('#dead-letters script').length")).toBe(0);
    expect(
      await evaluate<string>(
        page,
        `document.querySelector('${rows}[data-dead-letter="${older}"] a').getAttribute('href')`,
      ),
    ).toBe(`/console/streams/${fx.p}/groups/${fx.p}/messages?shard=0`);
    expect(await textOf(page, '#dead-letters')).not.toContain('not ours');
    await screenshot(page, join(shots, '21-dead-letters.png'));
    expect(problemsOf(page)).toEqual([]);
  });

  it('still lists the shards a scale-in removed, marked draining', async () => {
    const scaled = await fx.call('POST', `/coord/v1/streams/${fx.p}/scale`, {
      targetShardCount: 2,
      requestedBy: 'test',
      reason: 'draining shards on the pending page',
    });
    expect(scaled.status).toBe(202);
    await waitFor(
      page,
      'document.querySelector(\'#pending-shards tr[data-shard="3"] .badge\')',
      'the draining mark',
    );
    expect(await shardRows()).toEqual(['0', '1', '2', '3']);
    expect(await textOf(page, '#pending-shards tr[data-shard="2"] .badge')).toBe('draining');
    expect(await textOf(page, '#pending-shards tr[data-shard="1"]')).not.toContain('draining');
  });

  it('shows the error in both panels of a group the coordinator does not know', async () => {
    await page.goto(`${fx.url}/console/streams/${fx.p}/groups/no-such-group/pending`);
    await waitFor(page, "document.querySelector('#pending-error .alert')", 'the group error');
    expect(await textOf(page, '#pending-error')).toContain('404 GROUP_NOT_FOUND');
    expect(await textOf(page, '#view')).not.toContain('Loading…');
    for (const panel of ['#pending-shards', '#pending-entries', '#dead-letters', '#pending-owners']) {
      expect(await textOf(page, panel)).toContain('GROUP_NOT_FOUND');
    }
    await screenshot(page, join(shots, '19-pending-unknown-group.png'));
    expect(problemsOf(page)).toEqual([]);
  });
});
