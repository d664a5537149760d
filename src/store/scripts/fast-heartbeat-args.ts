/**
 * Encodes a FastHeartbeatRequest as the fast-heartbeat script call and decodes its reply.
 */
import { groupKeyList, groupKeys, streamKeys } from '../keys.js';
import type { FastHeartbeatRequest } from '../store.js';
import { ms, type ScriptCall } from './commit-args.js';

/** Builds the fast-heartbeat script call (constant size with respect to group size). */
export function encodeFastHeartbeat(ns: string, req: FastHeartbeatRequest): ScriptCall {
  return {
    keys: [...groupKeyList(groupKeys(ns, req.prefix, req.group)), streamKeys(ns, req.prefix).stream],
    args: [req.memberId, req.key, ms(req.now), ms(req.leaseExpiresAt), req.progressJson],
  };
}

/** The stored response text on a hit, null on a miss. */
export function decodeFastHeartbeatReply(reply: unknown): string | null {
  if (typeof reply === 'string') return reply;
  if (reply instanceof Uint8Array) return new TextDecoder().decode(reply);
  return null;
}
