/**
 * `GET /coord/v1/openapi.json` (the generated OpenAPI 3.1 document) and `GET /coord/v1/docs`
 * (a self-contained reference page rendering it). Both public; both work on Workers too.
 */
import { Hono } from 'hono';
import { serve } from '../api-route.js';
import type { AppEnv, ResolvedDeps } from '../context.js';
import { buildOpenApiDocument, type OpenApiDocument, type RouteRef } from '../openapi.js';
import { DOCS_SCRIPT, DOCS_STYLE, docsPageHtml } from '../openapi-page.js';
import { SERVICE_ROUTES } from './service-api.js';

async function sha256Base64(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  let bin = '';
  for (const b of new Uint8Array(digest)) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** CSP allowing exactly the page's own inline script and style, and fetches to this origin. */
async function pageCsp(): Promise<string> {
  const [script, style] = await Promise.all([sha256Base64(DOCS_SCRIPT), sha256Base64(DOCS_STYLE)]);
  return [
    "default-src 'none'",
    `script-src 'sha256-${script}'`,
    `style-src 'sha256-${style}'`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The docs routes (full paths, mounted at the root). `served` lists the app's routes (read lazily, once
 * the app is complete), so the document describes exactly what this deployment serves.
 */
export function docsRoutes(deps: ResolvedDeps, served: () => readonly RouteRef[]): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  let doc: OpenApiDocument | undefined;
  let csp: Promise<string> | undefined;
  const page = docsPageHtml();

  serve(app, SERVICE_ROUTES.openApi, (c) => {
    doc ??= buildOpenApiDocument({
      version: deps.version,
      served: served(),
      metricsPublic: deps.metricsPublic,
      prometheusPublic: deps.prometheusPublic,
    });
    return c.json(doc, 200, { 'cache-control': 'no-cache' });
  });

  serve(app, SERVICE_ROUTES.docs, async (c) => {
    csp ??= pageCsp();
    return c.html(page, 200, {
      'content-security-policy': await csp,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-cache',
    });
  });
  return app;
}
