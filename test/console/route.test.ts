/**
 * The console's static route: public (no credentials even when the API needs them), one HTML
 * shell for every page path, strict headers, revalidation by ETag, and a script that parses.
 */
import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { CONSOLE_CSS, CONSOLE_HTML, CONSOLE_JS } from '../../src/console/assets.js';
import { createApp } from '../../src/http/app.js';
import { CONSOLE_CSP } from '../../src/http/routes/console.js';
import { FakeCoordinator } from '../support/http-fakes.js';

const app = createApp({
  coordinator: new FakeCoordinator(),
  config: parseConfig({ COORDINATOR_ADMIN_PASSWORD: 'route-test-secret' }),
});

describe('console route > static assets', () => {
  it.each([
    '/console',
    '/console/',
    '/console/login',
    '/console/streams/orders/groups/orders',
    '/console/streams/orders/groups/orders/messages?shard=2',
  ])('answers %s with the HTML shell, without credentials', async (path) => {
    const res = await app.request(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await res.text()).toBe(CONSOLE_HTML);
  });

  it('redirects GET / to the console, without credentials, and the API reference links to it', async () => {
    const root = await app.request('/');
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/console');
    const docs = await app.request('/coord/v1/docs');
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('<a class="v" href="/console">');
  });

  it('serves the script and the stylesheet with their types', async () => {
    const js = await app.request('/console/assets/console.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await js.text()).toBe(CONSOLE_JS);
    const css = await app.request('/console/assets/console.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await css.text()).toBe(CONSOLE_CSS);
  });

  it('sends a strict CSP and no-sniff, no-referrer, no-framing headers', async () => {
    const res = await app.request('/console');
    expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).toContain("connect-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('cache-control')).toBe('no-cache');
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const first = await app.request('/console/assets/console.js');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^W\/"[0-9a-f]{8}-[0-9a-f]+"$/);
    const again = await app.request('/console/assets/console.js', { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const changed = await app.request('/console/assets/console.js', {
      headers: { 'if-none-match': 'W/"0"' },
    });
    expect(changed.status).toBe(200);
  });

  it('answers an unknown asset with 404', async () => {
    expect((await app.request('/console/assets/missing.js')).status).toBe(404);
  });

  it('leaves the API behind authentication', async () => {
    expect((await app.request('/coord/v1/monitoring/groups')).status).toBe(401);
  });
});

describe('console route > script', () => {
  it('parses as a classic script', () => {
    expect(() => new Script(CONSOLE_JS, { filename: 'console.js' })).not.toThrow();
  });

  it('never builds markup from strings (data reaches the page as text only)', () => {
    expect(CONSOLE_JS).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
  });

  it('loads nothing from another origin', () => {
    expect(`${CONSOLE_HTML}${CONSOLE_JS}${CONSOLE_CSS}`).not.toMatch(/https?:\/\//);
  });
});
