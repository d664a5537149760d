/**
 * vitest globalSetup: starts one private standalone Redis and one 6-node Cluster for the whole run,
 * hands their addresses to tests via `inject()`, and stops them at the end.
 */
import type { TestProject } from 'vitest/node';
import { assertRedisInstalled, startCluster, startStandalone } from './redis-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `redis://127.0.0.1:<port>` of the private standalone server. */
    redisUrl: string;
    /** Comma-separated `host:port` list of the private Cluster's nodes. */
    redisClusterNodes: string;
  }
}

/** Starts the servers once per run and returns the teardown. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await assertRedisInstalled();
  const [standalone, cluster] = await Promise.all([startStandalone(), startCluster()]);
  project.provide('redisUrl', standalone.url);
  project.provide('redisClusterNodes', cluster.nodes.map((n) => `${n.host}:${n.port}`).join(','));
  return async () => {
    await Promise.all([standalone.stop(), cluster.stop()]);
  };
}
