/**
 * Sends the heartbeats of one consumer's members. Against a coordinator that
 * advertises `BATCH_HEARTBEAT` in its heartbeat answers, heartbeats due together are coalesced
 * into one `POST …/groups/{g}/heartbeats`: the first one waits a few milliseconds, members due
 * soon anyway are asked to send theirs now, and each member gets back exactly the answer (or the
 * error) the single route would have given it. A heartbeat nobody joined goes out alone. Against any other coordinator (the reference),
 * and for a while after the batch route answers 404/405, every heartbeat goes out alone. Each
 * member keeps its own loop: one heartbeat in flight, its own timeout and retry pacing.
 */
import type { CoordinatorCapability } from '../core/model.js';
import { CoordinatorHttpError } from './errors.js';
import { API_BASE, type CoordinatorTransport } from './transport.js';

/** The capability that makes the batch route usable. */
const BATCH_CAPABILITY: CoordinatorCapability = 'BATCH_HEARTBEAT';
/** Most heartbeats one batch carries (the coordinator's documented bound). */
export const MAX_BATCH_ITEMS = 64;
/** How long the first heartbeat of a batch waits for the others, ms. */
const COLLECT_MS = 15;
/** How long single heartbeats are used after the batch route was not found, ms. */
const NOT_FOUND_BACKOFF_MS = 10 * 60_000;
/** Answers of the batch route that mean "not here": fall back to single heartbeats. */
const NOT_SERVED = new Set([404, 405, 501]);
/** Answers that refuse this batch as a whole (size, one bad item): send its heartbeats alone once. */
const RESEND_ALONE = new Set([400, 413]);
/** The coordinator has too many batches in flight (503): single heartbeats are not counted, so send alone. */
const BATCHES_BUSY = 'COORDINATOR_BUSY';

/** A member the batcher may ask to send its next heartbeat early. */
export interface BatchPeer {
  /** The earliest time (epoch ms) the member's next heartbeat may be sent, null while none is waiting. */
  pullableFrom(): number | null;
  /** Sends the waiting heartbeat now. */
  pullIn(): void;
}

/** What sends a member's heartbeat: resolves with the single-route answer, throws as the transport does. */
export interface HeartbeatSender {
  send(path: string, memberId: string, body: unknown): Promise<unknown>;
  /** Lets the sender pull the peer's heartbeats into batches; returns the unregister function. */
  register(peer: BatchPeer): () => void;
}

interface Queued {
  path: string;
  memberId: string;
  body: unknown;
  resolve: (answer: unknown) => void;
  reject: (err: unknown) => void;
}

/** Options of `HeartbeatBatcher`. */
export interface BatcherOptions {
  streamPrefix: string;
  consumerGroup: string;
  /** `false`: never batch. */
  enabled: boolean;
  /** @default Date.now */
  now?: () => number;
}

/** Path of the batched heartbeat of a group. */
function heartbeatBatchPath(streamPrefix: string, group: string): string {
  const e = encodeURIComponent;
  return `${API_BASE}/streams/${e(streamPrefix)}/groups/${e(group)}/heartbeats`;
}

/** True when a heartbeat answer advertises the batch route. */
function advertisesBatch(answer: unknown): boolean {
  const caps = (answer as { capabilities?: unknown } | null)?.capabilities;
  return Array.isArray(caps) && caps.includes(BATCH_CAPABILITY);
}

/** The heartbeat sender of one consumer. */
export class HeartbeatBatcher implements HeartbeatSender {
  private readonly path: string;
  private readonly now: () => number;
  private readonly peers = new Set<BatchPeer>();
  private queue: Queued[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** The latest answer said the batch route is served. */
  private advertised = false;
  private notFoundUntil = Number.NEGATIVE_INFINITY;
  /** Requests sent, by kind (monitoring and tests). */
  readonly sent = { single: 0, batch: 0 };

  constructor(
    private readonly transport: Pick<CoordinatorTransport, 'request'>,
    private readonly opts: BatcherOptions,
  ) {
    this.path = heartbeatBatchPath(opts.streamPrefix, opts.consumerGroup);
    this.now = opts.now ?? Date.now;
  }

  /** True while heartbeats go out in batches. */
  get batching(): boolean {
    return this.opts.enabled && this.advertised && this.now() >= this.notFoundUntil;
  }

  register(peer: BatchPeer): () => void {
    this.peers.add(peer);
    return () => this.peers.delete(peer);
  }

  send(path: string, memberId: string, body: unknown): Promise<unknown> {
    // A lone member has nothing to batch with: its heartbeat goes out at once, as always.
    if (!this.batching || this.peers.size < 2) return this.single(path, body);
    return new Promise((resolve, reject) => {
      this.queue.push({ path, memberId, body, resolve, reject });
      if (this.queue.length >= MAX_BATCH_ITEMS) this.flush();
      else if (this.timer === null) {
        this.timer = setTimeout(() => this.flush(), COLLECT_MS);
        this.pullInPeers();
      }
    });
  }

  /** Asks every member whose heartbeat is due soon anyway to send it now, into this batch. */
  private pullInPeers(): void {
    const now = this.now();
    for (const peer of this.peers) {
      const from = peer.pullableFrom();
      if (from !== null && from <= now) peer.pullIn();
    }
  }

  private async single(path: string, body: unknown): Promise<unknown> {
    this.sent.single++;
    const answer = await this.transport.request<unknown>('POST', path, body);
    this.observe(answer);
    return answer;
  }

  private observe(answer: unknown): void {
    this.advertised = advertisesBatch(answer);
  }

  private flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const items = this.queue.splice(0, MAX_BATCH_ITEMS);
    if (this.queue.length > 0) this.timer = setTimeout(() => this.flush(), 0);
    if (items.length === 0) return;
    void this.sendBatch(items);
  }

  private async sendBatch(items: Queued[]): Promise<void> {
    if (items.length === 1) {
      // Nobody else was due: the single route costs the coordinator the same and says more.
      const [i] = items as [Queued];
      this.single(i.path, i.body).then(i.resolve, i.reject);
      return;
    }
    let answer: unknown;
    try {
      this.sent.batch++;
      answer = await this.transport.request<unknown>('POST', this.path, {
        heartbeats: items.map((i) => i.body),
      });
    } catch (err) {
      const status = (err as { status?: unknown } | null)?.status;
      const busy = status === 503 && (err as { errorCode?: unknown }).errorCode === BATCHES_BUSY;
      if (typeof status === 'number' && NOT_SERVED.has(status)) {
        // An older coordinator (or one with batching switched off) behind the same URL.
        this.notFoundUntil = this.now() + NOT_FOUND_BACKOFF_MS;
        this.advertised = false;
      }
      if (typeof status === 'number' && (NOT_SERVED.has(status) || RESEND_ALONE.has(status) || busy)) {
        for (const i of items) this.single(i.path, i.body).then(i.resolve, i.reject);
        return;
      }
      // Timeouts, 5xx, 401/403: every member sees the error its own request would have seen.
      for (const i of items) i.reject(err);
      return;
    }
    const results = (answer as { results?: unknown } | null)?.results;
    if (!Array.isArray(results) || results.length !== items.length) {
      // Not an answer we understand: use the single route from now on.
      this.notFoundUntil = this.now() + NOT_FOUND_BACKOFF_MS;
      this.advertised = false;
      for (const i of items) this.single(i.path, i.body).then(i.resolve, i.reject);
      return;
    }
    items.forEach((item, n) => {
      deliver(item, results[n], (a) => this.observe(a));
    });
  }
}

/** Hands one result item to its member as the single route's answer or error. */
function deliver(item: Queued, result: unknown, observe: (answer: unknown) => void): void {
  const r = (result ?? {}) as {
    memberId?: unknown;
    httpStatus?: unknown;
    heartbeat?: unknown;
    error?: unknown;
  };
  const what = `POST ${item.path} (batched)`;
  if (r.memberId !== item.memberId || typeof r.httpStatus !== 'number') {
    item.reject(
      new CoordinatorHttpError(502, undefined, `${what}: the batch answer does not match its request`),
    );
    return;
  }
  if (r.httpStatus >= 200 && r.httpStatus < 300) {
    observe(r.heartbeat);
    item.resolve(r.heartbeat);
    return;
  }
  const e = (r.error ?? {}) as { errorCode?: unknown; message?: unknown };
  const code = typeof e.errorCode === 'string' ? e.errorCode : undefined;
  const message = typeof e.message === 'string' ? e.message : '';
  const tail = `${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`;
  item.reject(
    new CoordinatorHttpError(r.httpStatus, code, `${what} answered ${r.httpStatus}${tail}`, message),
  );
}
