/**
 * Paths under `/console`: every page has an address (deep links survive a reload), and
 * `parseRoute` names the view the current address shows.
 */
import { type Child, h } from './dom.js';
import { enc } from './format.js';

/** Where the console is mounted. */
export const BASE = '/console';

/** The page an address names. */
export type Route =
  | { name: 'groups' }
  | { name: 'login' }
  | { name: 'group'; p: string; g: string }
  | { name: 'messages'; p: string; g: string; shard: string | null; direction: string | null }
  | { name: 'pending'; p: string; g: string }
  | { name: 'missing' };

/** `/console/a/b?q` from path segments (encoded) and a query. */
export function consoleHref(segments: readonly string[], query?: Record<string, string> | null): string {
  const path = BASE + (segments.length ? '/' + segments.map(enc).join('/') : '');
  const q = query ? new URLSearchParams(query).toString() : '';
  return q ? path + '?' + q : path;
}

/** The group view's address. */
export function groupHref(p: string, g: string): string {
  return consoleHref(['streams', p, 'groups', g]);
}

/** A stream's first group is named like the stream; say it once then. */
export function groupLabel(p: string, g: string): string {
  return p === g ? g : p + ' / ' + g;
}

/** The message browser's address, at a shard or the first one. */
export function messagesHref(p: string, g: string, shard: number | null): string {
  return consoleHref(
    ['streams', p, 'groups', g, 'messages'],
    shard === null || shard === undefined ? null : { shard: String(shard) },
  );
}

/** The pending page's address. */
export function pendingHref(p: string, g: string): string {
  return consoleHref(['streams', p, 'groups', g, 'pending']);
}

/** A link the console follows itself (no page load). */
export function link(href: string, content: Child, cls?: string | null): HTMLAnchorElement {
  return h('a', { href, 'data-nav': true, class: cls }, content);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The route of the current address. */
export function parseRoute(): Route {
  const path = location.pathname;
  const at = path.indexOf(BASE);
  const rest = (at < 0 ? '' : path.slice(at + BASE.length)).replace(/^\/+|\/+$/g, '');
  const parts = rest ? rest.split('/').map(safeDecode) : [];
  const q = new URLSearchParams(location.search);
  const [first, p, third, g, fifth] = parts;
  if (parts.length === 0) return { name: 'groups' };
  if (parts.length === 1 && first === 'login') return { name: 'login' };
  if (first === 'streams' && third === 'groups' && p !== undefined && g !== undefined) {
    if (parts.length === 4) return { name: 'group', p, g };
    if (parts.length === 5 && fifth === 'messages') {
      return { name: 'messages', p, g, shard: q.get('shard'), direction: q.get('direction') };
    }
    if (parts.length === 5 && fifth === 'pending') return { name: 'pending', p, g };
  }
  return { name: 'missing' };
}
