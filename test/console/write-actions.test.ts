/**
 * The console's write forms for a WRITE session (create a stream, scale it, reset its offsets
 * after a dry run) and their absence for a READ one; a finished migration labelled COMPLETED (wire state DEPRECATED); and the links
 * between the console and the API reference.
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

const READER_PASSWORD = 'reader-only-pw';

let fx: ConsoleFixture;
let browser: Browser;
let page: Page;
let shots: string;

async function tokenFor(username: string, password: string): Promise<string> {
  const res = await fx.call('POST', '/coord/v1/auth/login', { username, password });
  expect(res.status).toBe(200);
  return res.body.accessToken;
}

const created = () => `${fx.p}-made`;

beforeAll(async () => {
  [fx, browser, shots] = await Promise.all([
    startConsoleFixture({ credentials: true, users: `reader:${READER_PASSWORD}:READ` }),
    launchBrowser(),
    shotsDir(),
  ]);
  page = await openPage(browser);
  await page.goto(`${fx.url}/console#token=${encodeURIComponent(await tokenFor('admin', ADMIN_PASSWORD))}`);
  await waitForView(page, 'groups');
});

afterAll(async () => {
  await browser?.close();
  await fx?.close();
  if (shots) await publishShots(shots);
});

describe('console > create a stream (WRITE)', () => {
  it('refuses a blank prefix without sending, then creates the stream and opens its group', async () => {
    await typeInto(page, '#create-prefix', '');
    await page.click('#create-submit');
    expect(await page.evaluate("document.querySelector('#create-prefix').getAttribute('aria-invalid')")).toBe(
      'true',
    );
    await typeInto(page, '#create-prefix', created());
    await typeInto(page, '#create-shards', '2');
    await typeInto(page, '#create-reason', 'created from the console test');
    await screenshot(page, join(shots, '15-create-stream.png'));
    await page.click('#create-submit');
    await waitFor(
      page,
      `location.pathname === ${JSON.stringify(`/console/streams/${created()}/groups/${created()}`)}`,
      'the new group page',
    );
    await waitForView(page, 'group');
    const group = await fx.call('GET', `/coord/v1/streams/${created()}/groups/${created()}`);
    expect(group.status).toBe(200);
    expect(group.body.shardCount).toBe(2);
    expect(await evaluate<number>(page, "document.querySelectorAll('#shard-grid .shard').length")).toBe(2);
  });

  it('shows why the coordinator refused a stream that exists', async () => {
    await page.goto(`${fx.url}/console`);
    await waitForView(page, 'groups');
    await typeInto(page, '#create-prefix', created());
    await page.click('#create-submit');
    await waitFor(page, "document.querySelector('#create-result .alert')", 'the refusal');
    expect(await textOf(page, '#create-result')).toMatch(/^Not created: 409 /);
  });
});

describe('console > scale a stream (WRITE)', () => {
  it('asks for a reason, scales, and labels the finished migration COMPLETED', async () => {
    await page.goto(`${fx.url}/console/streams/${created()}/groups/${created()}`);
    await waitForView(page, 'group');
    expect(await page.evaluate("document.querySelector('#scale-target').value")).toBe('2');
    await typeInto(page, '#scale-target', '3');
    await page.click('#scale-submit');
    expect(await page.evaluate("document.querySelector('#scale-reason').getAttribute('aria-invalid')")).toBe(
      'true',
    );
    expect((await fx.call('GET', `/coord/v1/streams/${created()}/groups/${created()}`)).body.shardCount).toBe(
      2,
    );

    await typeInto(page, '#scale-reason', 'scale-out from the console test');
    await page.click('#scale-submit');
    await waitFor(page, "document.querySelector('#scale-result .alert')", 'the scale answer');
    expect(await textOf(page, '#scale-result')).toMatch(
      /^Scale accepted for 1 group\(s\), reshard-\S+: 2 → 3, /,
    );
    // No member holds the stream: the scale-out completes on the next housekeeping pass.
    await waitFor(
      page,
      'document.querySelector(\'#migration [data-state="DEPRECATED"]\')',
      'the completed migration in the history',
      15_000,
    );
    expect(await textOf(page, '#migration [data-state="DEPRECATED"]')).toBe('COMPLETED');
    expect(await textOf(page, '#migration')).not.toContain('DEPRECATED');
    const migrations = await fx.call(
      'GET',
      `/coord/v1/monitoring/streams/${created()}/groups/${created()}/migrations`,
    );
    expect(migrations.body.migrations.map((m: { state: string }) => m.state)).toEqual(['DEPRECATED']);
    expect(await evaluate<number>(page, "document.querySelectorAll('#shard-grid .shard').length")).toBe(3);
    await screenshot(page, join(shots, '16-scaled-completed.png'));
    expect(problemsOf(page)).toEqual([]);
  });
});

describe('console > offsets reset (WRITE)', () => {
  const offsets = async () =>
    (await fx.call('GET', `/coord/v1/monitoring/streams/${created()}/groups/${created()}/offsets`)).body
      .shards as Array<{ lag: number | null }>;

  it('answers a dry run per shard, writes nothing, and executes only what the dry run showed', async () => {
    for (let i = 0; i < 5; i++) await fx.redis.xadd(`${created()}:0`, '*', 'payload', `r${i}`);
    for (let i = 0; i < 2; i++) await fx.redis.xadd(`${created()}:1`, '*', 'payload', `r${i}`);
    expect((await offsets()).map((s) => s.lag)).toEqual([5, 2, 0]);
    await page.goto(`${fx.url}/console/streams/${created()}/groups/${created()}`);
    await waitForView(page, 'group');
    expect(await page.evaluate("document.querySelector('#reset-execute').disabled")).toBe(true);

    await page.select('#reset-to', 'latest');
    await typeInto(page, '#reset-reason', 'skip the backlog from the console test');
    await page.click('#reset-dry-run');
    await waitFor(page, "document.querySelector('#reset-result .alert')", 'the dry run');
    expect(await textOf(page, '#reset-result .alert')).toBe(
      'Dry run (nothing written): the reset would skip 7 and replay 0 record(s) on 3 shard(s).',
    );
    expect(await textOf(page, 'tr[data-reset-shard="0"] .skipped')).toBe('5');
    expect((await offsets()).map((s) => s.lag)).toEqual([5, 2, 0]);
    await screenshot(page, join(shots, '17-offsets-reset-dry-run.png'));

    // A change after the dry run takes Execute away until the next dry run.
    await typeInto(page, '#reset-shards', '0');
    expect(await page.evaluate("document.querySelector('#reset-execute').disabled")).toBe(true);
    await typeInto(page, '#reset-shards', '');
    await page.click('#reset-dry-run');
    await waitFor(page, "!document.querySelector('#reset-execute').disabled", 'Execute after the dry run');
    await page.click('#reset-execute');
    await waitFor(page, "document.querySelector('#reset-result .alert.ok')", 'the reset');
    expect(await textOf(page, '#reset-result .alert')).toBe(
      'Reset done: the group skips 7 and replays 0 record(s) on 3 shard(s).',
    );
    expect((await offsets()).map((s) => s.lag)).toEqual([0, 0, 0]);
    expect(await page.evaluate("document.querySelector('#reset-execute').disabled")).toBe(true);
  });

  it('shows the refusal while members of the group hold leases', async () => {
    await page.goto(`${fx.url}/console/streams/${fx.p}/groups/${fx.p}`);
    await waitForView(page, 'group');
    await page.click('#reset-dry-run');
    await waitFor(page, "document.querySelector('#reset-result .alert')", 'the refusal');
    expect(await textOf(page, '#reset-result')).toMatch(/^Dry run refused: 409 GROUP_HAS_ACTIVE_MEMBERS/);
    expect(await page.evaluate("document.querySelector('#reset-execute').disabled")).toBe(true);
    expect(problemsOf(page)).toEqual([]);
  });
});

describe('console > READ session', () => {
  it('offers no create, scale or offsets reset, and says why', async () => {
    const tab = await openPage(browser);
    try {
      await tab.goto(
        `${fx.url}/console#token=${encodeURIComponent(await tokenFor('reader', READER_PASSWORD))}`,
      );
      await waitForView(tab, 'groups');
      expect(await textOf(tab, '#create-stream')).toBe('Creating a stream needs the WRITE role.');
      expect(await tab.evaluate("document.querySelector('#create-submit')")).toBeNull();
      await tab.goto(`${fx.url}/console/streams/${fx.p}/groups/${fx.p}`);
      await waitForView(tab, 'group');
      expect(await textOf(tab, '#scale')).toBe('Scaling the stream needs the WRITE role.');
      expect(await tab.evaluate("document.querySelector('#scale-submit')")).toBeNull();
      expect(await textOf(tab, '#offsets-reset')).toBe('Resetting offsets needs the WRITE role.');
      await screenshot(tab, join(shots, '20-read-session-group.png'));
    } finally {
      await tab.close();
    }
  });
});

describe('console > API reference', () => {
  it('links from the console to the API reference and back', async () => {
    await page.goto(`${fx.url}/console`);
    await waitForView(page, 'groups');
    await page.click('#api-docs');
    await waitFor(page, "document.querySelectorAll('details.op').length > 0", 'the API reference');
    expect(await page.evaluate('location.pathname')).toBe('/coord/v1/docs');
    await screenshot(page, join(shots, '21-api-reference.png'));
    await page.click('header a.v');
    await waitForView(page, 'groups');
    expect(await page.evaluate('location.pathname')).toBe('/console');
  });
});
