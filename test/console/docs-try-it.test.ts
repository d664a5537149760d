/**
 * The API reference page in Chromium: it renders every operation with its example, and its
 * try-it forms send real requests to the coordinator that served it — with the Authorization
 * typed into the page, or without (401) — under the page's own CSP.
 */
import { Buffer } from 'node:buffer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTES } from '../../src/http/route-table.js';
import {
  type Browser,
  launchBrowser,
  openPage,
  type Page,
  problemsOf,
  typeInto,
  waitFor,
} from './browser.js';
import { ADMIN_PASSWORD, type ConsoleFixture, startConsoleFixture } from './fixture.js';

let fx: ConsoleFixture;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  [fx, browser] = await Promise.all([startConsoleFixture({ credentials: true }), launchBrowser()]);
  page = await openPage(browser);
  await page.goto(`${fx.url}/coord/v1/docs`);
  await waitFor(page, "document.querySelectorAll('details.op').length > 0", 'the rendered operations');
});

afterAll(async () => {
  await browser?.close();
  await fx?.close();
});

/** Opens operation `id`, fills its inputs (`#try-<id>-<name>`) and sends; resolves to the shown answer. */
async function tryOperation(id: string, values: Record<string, string>): Promise<string> {
  await page.evaluate(`document.getElementById(${JSON.stringify(id)}).open = true`);
  for (const [name, value] of Object.entries(values)) await typeInto(page, `#try-${id}-${name}`, value);
  await page.click(`#${id} .try button`);
  const out = `document.querySelector('#${id} .try .out')`;
  await waitFor(page, `${out} && /^HTTP \\d+/.test(${out}.textContent)`, `the answer of ${id}`);
  return (await page.evaluate(`${out}.textContent`)) as string;
}

describe('docs > try it', () => {
  it('renders every declared operation the Node server serves, each with an example answer', async () => {
    const ids = (await page.evaluate(
      "[...document.querySelectorAll('details.op')].map((d) => d.id)",
    )) as string[];
    const declared = API_ROUTES.map((r) => r.operationId);
    expect(ids.length).toBe(declared.length);
    const withExample = (await page.evaluate(
      "[...document.querySelectorAll('details.op')].filter((d) => [...d.querySelectorAll('h4')].some((h) => h.textContent.startsWith('Example answer'))).length",
    )) as number;
    expect(withExample).toBe(ids.length);
  });

  it('answers 401 without credentials, and the group with the Authorization typed into the page', async () => {
    const params = { streamPrefix: fx.p, consumerGroup: fx.p };
    expect(await tryOperation('getGroup', params)).toMatch(/^HTTP 401/);
    const basic = `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}`;
    await typeInto(page, '#try-auth', basic);
    const answer = await tryOperation('getGroup', params);
    expect(answer).toMatch(/^HTTP 200/);
    const body = JSON.parse(answer.slice(answer.indexOf('\n') + 1));
    expect(body).toMatchObject({ streamPrefix: fx.p, consumerGroup: fx.p });
  });

  it('sends the body typed into the form (a refused one shows the error body)', async () => {
    const answer = await tryOperation('createStream', {
      streamPrefix: `${fx.p}-new`,
      body: JSON.stringify({ initialShardCount: 0, requestedBy: 'docs' }),
    });
    expect(answer).toMatch(/^HTTP 400/);
    expect(answer).toContain('INVALID_REQUEST');
    const created = await tryOperation('createStream', {
      streamPrefix: `${fx.p}-new`,
      body: JSON.stringify({ initialShardCount: 2, requestedBy: 'docs' }),
    });
    expect(created).toMatch(/^HTTP 201/);
    const group = await fx.call('GET', `/coord/v1/streams/${fx.p}-new/groups/${fx.p}-new`);
    expect(group.status).toBe(200);
  });

  it('keeps the credentials out of the address bar and storage, and raises no page problem', async () => {
    expect(page.url()).not.toContain('Basic');
    const stored = (await page.evaluate(
      'JSON.stringify([Object.keys(localStorage), Object.keys(sessionStorage), document.cookie])',
    )) as string;
    expect(stored).toBe('[[],[],""]');
    expect(problemsOf(page)).toEqual([]);
  });
});
