/**
 * Groups listed a page at a time (docs/protocol.md#listing-groups-in-pages): the stream names are
 * read once per request and sorted, the walk starts after the cursor's (stream, group), and only
 * the streams the page needs are loaded, a few at a time. Redis reads and memory per request are
 * bounded by the page size (and the listing of names), not by the number of groups.
 */
import type { GroupPage, GroupPageQuery, GroupSnapshot } from '../coordinator-api.js';
import { own } from '../core/dict.js';
import type { StreamSnapshot } from '../store/store.js';

/** Streams loaded at once while a page fills. */
const LOAD_CONCURRENCY = 16;

/** UTF-16 code-unit order, the order of the listing and of the cursor. */
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The first index of sorted `names` whose name is not below `name`. */
function lowerBound(names: readonly string[], name: string): number {
  let lo = 0;
  let hi = names.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((names[mid] as string) < name) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * One page: `names` are every stream prefix (any order), `load` reads one stream with all its
 * groups (null when it is gone meanwhile). A stream created or deleted between two pages does
 * not disturb the walk: every group that exists throughout it is listed exactly once.
 */
export async function groupPage(
  names: readonly string[],
  load: (prefix: string) => Promise<StreamSnapshot | null>,
  query: GroupPageQuery,
): Promise<GroupPage> {
  const sorted = [...names].sort(compareNames);
  const { limit, after } = query;
  const groups: GroupSnapshot[] = [];
  let i = after ? lowerBound(sorted, after.stream) : 0;
  let more = false;
  while (i < sorted.length && !more) {
    const batch = sorted.slice(i, i + Math.max(1, Math.min(LOAD_CONCURRENCY, limit - groups.length)));
    i += batch.length;
    const snaps = await Promise.all(batch.map(load));
    for (const s of snaps) {
      if (!s) continue;
      for (const name of [...s.stream.groups].sort(compareNames)) {
        if (after && s.stream.streamPrefix === after.stream && name <= after.group) continue;
        const group = own(s.groups, name);
        if (!group) continue;
        if (groups.length === limit) {
          more = true;
          break;
        }
        groups.push({ stream: s.stream, group });
      }
      if (more) break;
    }
    if (groups.length === limit && i < sorted.length) more = true;
  }
  const last = groups.at(-1);
  return {
    groups,
    next: more && last ? { stream: last.group.streamPrefix, group: last.group.consumerGroup } : null,
    totalStreams: sorted.length,
    totalGroups: after === null && !more ? groups.length : null,
  };
}
