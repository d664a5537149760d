/**
 * A page of groups from any coordinator: its own paged read when it has one, else a page cut
 * from `listGroups()` the same way (docs/protocol.md#listing-groups-in-pages).
 */

import { groupPage } from '../coordinator/group-pages.js';
import type { CoordinatorApi, GroupPage, GroupPageQuery } from '../coordinator-api.js';
import type { StreamSnapshot } from '../store/store.js';

/** `coordinator.listGroupPage(query)`, or the same page cut from every group. */
export async function listGroupPage(coordinator: CoordinatorApi, query: GroupPageQuery): Promise<GroupPage> {
  if (coordinator.listGroupPage) return coordinator.listGroupPage(query);
  const byStream = new Map<string, StreamSnapshot>();
  for (const { stream, group } of await coordinator.listGroups()) {
    const s: StreamSnapshot = byStream.get(stream.streamPrefix) ?? {
      revision: 1,
      stream: { ...stream, groups: [] },
      groups: Object.create(null),
    };
    s.stream.groups.push(group.consumerGroup);
    s.groups[group.consumerGroup] = group;
    byStream.set(stream.streamPrefix, s);
  }
  return groupPage([...byStream.keys()], async (p) => byStream.get(p) ?? null, query);
}
