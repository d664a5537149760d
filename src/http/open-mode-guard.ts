/**
 * Open mode (no credentials) trusts the network path, so it answers only requests meant for it
 * (docs/security.md). A web page elsewhere must not drive the API through the visitor's browser: by DNS
 * rebinding (its own name pointed at 127.0.0.1, so the Host is foreign) or by cross-origin
 * mutations (a POST/DELETE the page makes the browser send). Same-origin requests — the web
 * console this app serves — and non-browser clients (no Origin) pass.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './context.js';
import { errorResponse } from './errors.js';

/** Which Host values open mode serves: loopback names only (Node), or any (a Worker open on purpose). */
export type OpenModeHosts = 'loopback' | 'any';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const IPV4_LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
const PORT = /^:\d{1,5}$/;

/** The name part of a Host value (`[::1]:8080` → `[::1]`), lowercased; null when malformed. */
function hostName(host: string): string | null {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    const rest = h.slice(end + 1);
    return end > 0 && (rest === '' || PORT.test(rest)) ? h.slice(0, end + 1) : null;
  }
  const colon = h.indexOf(':');
  if (colon < 0) return h === '' ? null : h;
  return colon > 0 && PORT.test(h.slice(colon)) ? h.slice(0, colon) : null;
}

/** True for a Host value naming this machine: `localhost` (and `*.localhost`), 127.0.0.0/8, `[::1]`; any port. */
function isLoopbackHostHeader(host: string): boolean {
  const name = hostName(host);
  if (name === null) return false;
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (IPV4_LOOPBACK.test(name)) return name.split('.').every((n) => Number(n) <= 255);
  return name === '[::1]' || name.startsWith('[::ffff:127.');
}

/** Why a mutation is cross-origin, or null when it is same-origin or from a non-browser client. */
function crossOrigin(origin: string | undefined, fetchSite: string | undefined, host: string): string | null {
  if (fetchSite?.trim().toLowerCase() === 'cross-site') return 'Sec-Fetch-Site is cross-site';
  if (origin === undefined) return null;
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    return `Origin '${origin.slice(0, 100)}' is not this coordinator`;
  }
  return originHost === host.trim().toLowerCase()
    ? null
    : `Origin '${origin.slice(0, 100)}' is not this coordinator`;
}

function refused(message: string): Response {
  return errorResponse(403, 'FORBIDDEN', message);
}

/** The open-mode checks, on every path: Host (unless `hosts` is 'any'), then the Origin of mutations. */
export function openModeGuard(hosts: OpenModeHosts): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    if (hosts === 'loopback' && !isLoopbackHostHeader(host)) {
      return refused(
        `Host '${host.slice(0, 100)}' refused: in open mode (no credentials configured) the coordinator ` +
          'answers only loopback hosts (localhost, 127.0.0.1, [::1]); configure credentials to serve other names',
      );
    }
    if (MUTATING.has(c.req.method)) {
      const why = crossOrigin(c.req.header('origin'), c.req.header('sec-fetch-site'), host);
      if (why !== null) {
        return refused(
          `cross-origin ${c.req.method} refused: ${why}; in open mode (no credentials configured) only ` +
            'same-origin browser requests may change state',
        );
      }
    }
    await next();
  };
}
