/**
 * Producer SDK entry for the edge (Workers and other fetch runtimes): the producer and the
 * @upstash/redis adapter. Nothing reachable from here imports ioredis or a `node:` module.
 */
export * from './errors.js';
export {
  type BatchResult,
  createProducer,
  MAX_EVENT_ID_LENGTH,
  type Producer,
  type ProducerOptions,
  type PublishRecord,
  type PublishResult,
} from './producer.js';
export type { EntryFields, ProducerRedis, ShardWrite, WriteOutcome } from './redis-adapter.js';
export type { ProducerRouting } from './routing.js';
export type { Credentials, FetchLike } from './transport.js';
export {
  type UpstashAdapterOptions,
  type UpstashPipelineLike,
  type UpstashRedisLike,
  upstashAdapter,
} from './upstash-adapter.js';
