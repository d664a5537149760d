/**
 * Giving up on a Redis command without its connection's help. ioredis 6 can leave a command
 * pending forever — one in flight when the socket dropped is stashed until the client is ready
 * again, and `disconnect()` while reconnecting settles nothing (redis/ioredis#2197) — so a
 * stopping read loop races its waits against an abort signal instead of trusting the client.
 */

/** Why a wait was given up (never reported: the reader is stopping). */
export class WaitAbandonedError extends Error {
  constructor(what: string) {
    super(`${what}: abandoned, the reader is stopping`);
    this.name = 'WaitAbandonedError';
  }
}

/**
 * Settles like `p`, or rejects with `WaitAbandonedError` once `signal` aborts. The command
 * itself is not cancelled: its late outcome is ignored (a late read leaves its entries pending,
 * to be claimed again).
 */
export function unlessAbandoned<T>(p: Promise<T>, signal: AbortSignal, what: string): Promise<T> {
  if (signal.aborted) {
    p.catch(() => {});
    return Promise.reject(new WaitAbandonedError(what));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new WaitAbandonedError(what));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
