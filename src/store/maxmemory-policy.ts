/**
 * Reads Redis' `maxmemory-policy` from `INFO memory`, which managed services serve where CONFIG
 * is disabled. On a Cluster every master is asked and the riskiest policy wins: one evicting
 * node is enough to lose a group's keys.
 */

/** What the reading needs of a connection: ioredis's `info(section)`. */
interface InfoSource {
  info(section: string): Promise<string>;
}

/** `maxmemory_policy` of an `INFO memory` reply; null when the reply has no such field. */
function maxmemoryPolicyOf(info: string): string | null {
  const m = /^maxmemory_policy:([^\r\n]*)/m.exec(info);
  const policy = m?.[1]?.trim();
  return policy ? policy : null;
}

/** How much a policy risks the coordinator's keys: every key, keys with a TTL, none. */
function risk(policy: string): number {
  if (policy.startsWith('allkeys-')) return 2;
  return policy.startsWith('volatile-') ? 1 : 0;
}

/**
 * The policy of `nodes` (the riskiest when they differ); null when a node's reply does not name
 * one or there is no node to ask. Rejects when a node refuses INFO.
 */
export async function readMaxmemoryPolicy(nodes: readonly InfoSource[]): Promise<string | null> {
  if (nodes.length === 0) return null;
  const policies = await Promise.all(nodes.map(async (n) => maxmemoryPolicyOf(await n.info('memory'))));
  let worst: string | null = null;
  for (const p of policies) {
    if (p === null) return null;
    if (worst === null || risk(p) > risk(worst)) worst = p;
  }
  return worst;
}
