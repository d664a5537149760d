/**
 * Consumer SDK entry (Node only: it reads through ioredis).
 */

export { type Consumer, createConsumer } from './consumer.js';
export * from './consumer-errors.js';
export type {
  ConsumerEventMap,
  ConsumerEventName,
  ConsumerListener,
  ConsumerListeners,
  OwnershipRecord,
  RevokeReason,
} from './consumer-events.js';
export type {
  ConsumedRecord,
  ConsumerHandler,
  ConsumerOptions,
  HandlerOutcome,
  HandlerResult,
  RetryBackoff,
} from './consumer-options.js';
export * from './errors.js';
export type { MemberStatus } from './member.js';
export type { Credentials, FetchLike } from './transport.js';
