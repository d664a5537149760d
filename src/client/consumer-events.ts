/**
 * Events of the consumer and a tiny typed emitter (no `node:events`: listeners are plain
 * callbacks, and a throwing listener never disturbs the consumer).
 */

/** Why a member stopped reading a shard. */
export type RevokeReason =
  /** The coordinator moved the shard (it left `assignedShards`). */
  | 'rebalance'
  /** The local assignment lease ran out without a newer heartbeat answer (fail closed). */
  | 'lease-lost'
  /** The coordinator answered FENCED_MEMBER_EPOCH / UNKNOWN_MEMBER_ID or rejected the member. */
  | 'fenced'
  /** `close()`. */
  | 'shutdown';

/** One interval during which a member read (and processed) a shard. */
export interface OwnershipRecord {
  memberId: string;
  shard: number;
  /** When the member began reading (before reclaiming pending entries), epoch ms. */
  start: number;
  /**
   * When its last handler on the shard finished and its acks were written; after a hard stop
   * on a Redis that does not confirm them, when its last handler finished. Null while open.
   */
  end: number | null;
}

/** Payload of every event, by name. */
export interface ConsumerEventMap {
  /** A member began reading a shard. */
  assigned: { memberId: string; shard: number; streamKey: string };
  /** A member stopped reading a shard and finished its in-flight work on it (also when Redis is unreachable). */
  revoked: { memberId: string; shard: number; streamKey: string; reason: RevokeReason };
  /**
   * A member lost shards without being told: its local assignment lease ran out (`cause:
   * 'lease-expired'`, every shard), or a fenced write found the shard's ownership token held by
   * a newer owner (`cause: 'ownership-token'`, that shard; `leaseExpiredAt` is then the local
   * lease's end at that moment). It stopped reading them at once.
   */
  'lease-lost': {
    memberId: string;
    shards: number[];
    leaseExpiredAt: number;
    cause: 'lease-expired' | 'ownership-token';
  };
  /**
   * Fenced acks: a write of a member that no longer owns the shard was refused and not applied
   * (`ids`: the entries it would have acked or claimed; they stay pending for the owner).
   * `inDoubt`: those of `ids` sent before without a known outcome (a lost reply): that earlier
   * send may have been applied while the shard was still the member's.
   */
  'write-refused': {
    memberId: string;
    shard: number;
    streamKey: string;
    operation: string;
    ids: string[];
    inDoubt: string[];
    heldBy: { epoch: number; memberId: string } | null;
  };
  /** A record went to the dead-letter stream. */
  'dead-letter': {
    memberId: string;
    shard: number;
    entryId: string;
    deliveryCount: number;
    error: string;
    deadLetterId: string;
  };
  /** An ownership interval opened (`end: null`) or closed (for exclusivity checks and audits). */
  ownership: OwnershipRecord;
  /**
   * Something failed; the consumer carries on (retries, re-reads, fails closed as needed). With
   * no listener, reported in one rate-limited line on `console.warn` instead.
   */
  error: { memberId: string | null; context: string; error: Error };
}

/** An event name. */
export type ConsumerEventName = keyof ConsumerEventMap;

/** A listener of event `K`. */
export type ConsumerListener<K extends ConsumerEventName> = (event: ConsumerEventMap[K]) => void;

/** Listeners given up front (so events during start-up are not missed). */
export type ConsumerListeners = { [K in ConsumerEventName]?: ConsumerListener<K> };

/** Typed emitter of consumer events. */
export class ConsumerEvents {
  private readonly listeners = new Map<ConsumerEventName, Set<(e: never) => void>>();

  /**
   * @param unheard gets the `error` events no listener hears (else a failing Redis or coordinator
   *   would go unnoticed). @default dropped
   */
  constructor(
    initial: ConsumerListeners = {},
    private readonly unheard: (event: ConsumerEventMap['error']) => void = () => {},
  ) {
    for (const [name, fn] of Object.entries(initial)) {
      if (typeof fn === 'function')
        this.on(name as ConsumerEventName, fn as ConsumerListener<ConsumerEventName>);
    }
  }

  /** Adds a listener; returns a function that removes it. */
  on<K extends ConsumerEventName>(name: K, listener: ConsumerListener<K>): () => void {
    let set = this.listeners.get(name);
    if (!set) {
      set = new Set();
      this.listeners.set(name, set);
    }
    const fn = listener as (e: never) => void;
    set.add(fn);
    return () => {
      set.delete(fn);
    };
  }

  /** Calls every listener of `name`; listener failures are swallowed. */
  emit<K extends ConsumerEventName>(name: K, event: ConsumerEventMap[K]): void {
    const set = this.listeners.get(name);
    if (!set) return;
    for (const fn of [...set]) {
      try {
        (fn as ConsumerListener<K>)(event);
      } catch {
        // A listener's bug must not stop a read loop or a heartbeat.
      }
    }
  }

  /** Emits an `error` event for `err` (non-Errors are wrapped). */
  error(memberId: string | null, context: string, err: unknown): void {
    const error = err instanceof Error ? err : new Error(String(err));
    if (!this.listeners.get('error')?.size) this.unheard({ memberId, context, error });
    else this.emit('error', { memberId, context, error });
  }
}
