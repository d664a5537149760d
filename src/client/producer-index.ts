/**
 * Producer SDK entry for Node: everything of the edge entry plus the ioredis adapter
 * (standalone Redis or Redis Cluster).
 */

export { type IoredisAdapterOptions, ioredisAdapter } from './ioredis-adapter.js';
export * from './producer-edge.js';
