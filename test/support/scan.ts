/** Key listing on standalone and Cluster (every master), for "nothing was written" checks. */
import { Cluster, type Redis } from 'ioredis';

/** All keys matching `pattern`, sorted. */
export async function keysMatching(client: Redis | Cluster, pattern: string): Promise<string[]> {
  const nodes = client instanceof Cluster ? client.nodes('master') : [client];
  const out: string[] = [];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      out.push(...keys);
    } while (cursor !== '0');
  }
  return out.sort();
}

/** Every key of a coordinator namespace and of a stream prefix, with their values' types. */
export async function snapshotKeys(
  client: Redis | Cluster,
  namespace: string,
  prefix: string,
): Promise<string[]> {
  const keys = [
    ...(await keysMatching(client, `${namespace}:*`)),
    ...(await keysMatching(client, `${prefix}*`)),
  ];
  return keys.sort();
}
