/**
 * A count of a store's Redis requests, fed by the store's `onRequest` option and read by the
 * Coordinator (`requestCount`), whose sweep budgets its round trips with it.
 */

/** A request count: pass `onRequest` to the store and `count` to the Coordinator. */
export interface RequestCounter {
  /** Counts one request (the store's `onRequest`). */
  readonly onRequest: () => void;
  /** Requests counted so far (the Coordinator's `requestCount`). */
  readonly count: () => number;
}

/** A counter starting at 0. */
export function requestCounter(): RequestCounter {
  let n = 0;
  return {
    onRequest: () => {
      n++;
    },
    count: () => n,
  };
}
