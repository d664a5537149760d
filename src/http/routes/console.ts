/**
 * The web console at `/console` (public static assets, outside `/coord/v1`): the HTML shell for
 * `/console` and every page path below it, plus its script and stylesheet. The page itself holds
 * no data; everything it shows comes from the authenticated API with a Bearer token.
 */
import { type Context, Hono } from 'hono';
import { CONSOLE_ASSETS, CONSOLE_BASE, CONSOLE_PAGE, type ConsoleAsset } from '../../console/assets.js';
import type { AppEnv } from '../context.js';

/** Content-Security-Policy of console responses: own script, style and API only. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const ASSET_DIR = `${CONSOLE_BASE}/assets/`;

/** FNV-1a over UTF-16 code units: a cheap, stable validator for the ETag (not security). */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

const etags = new WeakMap<ConsoleAsset, string>();

function etagOf(asset: ConsoleAsset): string {
  let tag = etags.get(asset);
  if (tag === undefined) {
    tag = `W/"${fnv1a(asset.body)}-${asset.body.length.toString(16)}"`;
    etags.set(asset, tag);
  }
  return tag;
}

function send(c: Context<AppEnv>, asset: ConsoleAsset): Response {
  const etag = etagOf(asset);
  const headers: Record<string, string> = {
    'content-type': asset.contentType,
    // Revalidate every time: a redeploy must not leave an old script talking to a new API.
    'cache-control': 'no-cache',
    etag,
    'content-security-policy': CONSOLE_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
  };
  const match = c.req.header('if-none-match');
  if (match?.split(',').some((t) => t.trim() === etag)) return c.body(null, 304, headers);
  return c.body(asset.body, 200, headers);
}

/** `GET /` (to the console), `GET /console`, `GET /console/*` (mounted at the root, no authentication). */
export function consoleRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Someone who opens the coordinator's address in a browser lands on the console, not a JSON 404.
  // Middleware rather than a route: `/` is no API operation (the OpenAPI catalogue lists routes).
  app.use('/', async (c, next) => (c.req.method === 'GET' ? c.redirect(CONSOLE_BASE, 302) : next()));
  app.get(CONSOLE_BASE, (c) => send(c, CONSOLE_PAGE));
  app.get(`${CONSOLE_BASE}/*`, (c) => {
    const path = c.req.path;
    if (!path.startsWith(ASSET_DIR)) return send(c, CONSOLE_PAGE);
    const asset = CONSOLE_ASSETS.get(path);
    return asset === undefined ? c.notFound() : send(c, asset);
  });
  return app;
}
