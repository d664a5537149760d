/**
 * A loopback HTTP proxy between consumer processes and a coordinator that can hold heartbeat
 * requests back past the SDK's request timeout and forward them anyway, so the coordinator
 * decides them late, after the SDK's retry (docs/protocol.md#request-order). Everything that is
 * not a heartbeat (`POST …/heartbeat`, `POST …/heartbeats`) passes straight through.
 *
 * What to hold is a policy's choice (`LateJoinPlan` below). The proxy records every heartbeat it
 * held and every copy the coordinator answered after the client had closed its socket (the SDK
 * gave up on it: a real late copy), with the heartbeat status the coordinator gave each item.
 * It also follows, from the requests and the answers it passed, which shards each member was told
 * to give up and has not reported REVOKED yet.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One heartbeat of a request (a single heartbeat, or one item of a batch). */
export interface HeartbeatItem {
  memberId: string;
  epoch: number;
  owned: number[];
  /** Shards reported REVOKED. */
  revoked: number[];
  /** Shards reported DRAINING. */
  draining: number[];
}

/** A heartbeat request seen by the proxy. */
export interface HeartbeatRequest {
  id: number;
  route: 'single' | 'batch';
  items: HeartbeatItem[];
  arrivedAt: number;
  /** When the client closed its socket before an answer (the SDK timed out), else null. */
  clientClosedAt: number | null;
}

/** A copy the coordinator answered after its client had gone. */
export interface LateCopy {
  request: HeartbeatRequest;
  forwardedAt: number;
  answeredAt: number;
  /** Heartbeat status per item (`FENCED_MEMBER_EPOCH`, `OK`, …), or `HTTP <n>`. */
  statuses: string[];
}

/** What a policy says about a heartbeat request. */
export interface DelayPolicy {
  /** A promise to wait for before forwarding (the request is held until then), or null to pass. */
  hold(req: HeartbeatRequest, proxy: DelayProxy): Promise<void> | null;
  /** Runs before any request that is not held is forwarded (it may forward held ones first). */
  before?(req: HeartbeatRequest, proxy: DelayProxy): Promise<void>;
}

/** The running proxy. */
export interface DelayProxy {
  url: string;
  /** Heartbeat requests seen. */
  heartbeats: number;
  /** Requests held (delayed) by the policy. */
  held: HeartbeatRequest[];
  /** Held copies forwarded after their client had gone (so decided after the SDK gave up). */
  late: LateCopy[];
  /** Held copies whose client was still there when answered (not late). */
  heldAnsweredInTime: number;
  /** Shards `memberId` was told to give up and has not reported REVOKED (nor dropped) yet. */
  revoking(memberId: string): ReadonlySet<number>;
  /** Resolves when the copy `req` was answered by the coordinator (or failed). */
  answered(req: HeartbeatRequest): Promise<void>;
  close(): Promise<void>;
}

const shardsOf = (list: unknown): number[] =>
  Array.isArray(list)
    ? list
        .map((x) => (x as { shardIndex?: unknown } | null)?.shardIndex)
        .filter((s): s is number => typeof s === 'number')
    : [];

/** A heartbeat body as the proxy reads it (loosely: it only looks). */
interface LooseBody {
  memberId?: unknown;
  memberEpoch?: unknown;
  ownedShards?: unknown;
  revokingShards?: Array<{ state?: unknown; shard?: { shardIndex?: unknown } } | null>;
}

function itemOf(b: LooseBody | null): HeartbeatItem | null {
  if (!b || typeof b.memberId !== 'string' || typeof b.memberEpoch !== 'number') return null;
  const rev = Array.isArray(b.revokingShards) ? b.revokingShards : [];
  const by = (state: string) =>
    rev
      .filter((r) => r?.state === state)
      .map((r) => r?.shard?.shardIndex)
      .filter((x): x is number => typeof x === 'number');
  return {
    memberId: b.memberId,
    epoch: b.memberEpoch,
    owned: shardsOf(b.ownedShards),
    revoked: by('REVOKED'),
    draining: by('DRAINING'),
  };
}

/** The heartbeat items of a request, or null when it is not a heartbeat. */
function heartbeatItems(method: string, path: string, body: string): HeartbeatRequest['items'] | null {
  if (method !== 'POST') return null;
  const single = /\/heartbeat(\?|$)/.test(path);
  const batch = /\/heartbeats(\?|$)/.test(path);
  if (!single && !batch) return null;
  try {
    const json = JSON.parse(body);
    const raw = batch ? (Array.isArray(json?.heartbeats) ? json.heartbeats : []) : [json];
    return raw.map(itemOf).filter((x: HeartbeatItem | null): x is HeartbeatItem => x !== null);
  } catch {
    return [];
  }
}

/** Per item: the heartbeat answer (or null for an error result), in request order. */
// biome-ignore lint/suspicious/noExplicitAny: as above.
function answersOf(route: 'single' | 'batch', status: number, body: string): Array<any | null> | string {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return `HTTP ${status}`;
  }
  if (route === 'single') {
    if (status >= 200 && status < 300) return [json];
    return `HTTP ${status} ${(json as { errorCode?: string } | null)?.errorCode ?? ''}`.trim();
  }
  const results = (json as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) return `HTTP ${status}`;
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  return results.map((r: any) => (r?.httpStatus >= 200 && r?.httpStatus < 300 ? r.heartbeat : null));
}

/** Starts the proxy on a free loopback port in front of `upstream` (`http://127.0.0.1:<port>`). */
export async function startDelayProxy(upstream: string, policy: DelayPolicy): Promise<DelayProxy> {
  const target = new URL(upstream);
  const revoking = new Map<string, Set<number>>();
  const answeredOf = new Map<number, Promise<void>>();
  let nextId = 0;

  // The member's own view only: answers it never saw (late copies) change nothing here.
  const onRequestItem = (it: HeartbeatItem) => {
    const set = revoking.get(it.memberId);
    if (!set) return;
    if (it.epoch <= 0) {
      set.clear();
      return;
    }
    for (const s of [...set]) {
      if (it.revoked.includes(s) || (!it.owned.includes(s) && !it.draining.includes(s))) set.delete(s);
    }
  };
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  const onAnswerItem = (it: HeartbeatItem, a: any | null) => {
    if (!a || typeof a.status !== 'string') return;
    const set = revoking.get(it.memberId) ?? new Set<number>();
    revoking.set(it.memberId, set);
    if (a.status !== 'OK' && a.status !== 'REVOKE_PENDING' && a.status !== 'SYNC_METADATA') {
      set.clear();
      return;
    }
    const assigned = new Set(shardsOf(a.assignment?.assignedShards));
    for (const s of it.owned) if (!assigned.has(s)) set.add(s);
  };

  const proxy: DelayProxy = {
    url: '',
    heartbeats: 0,
    held: [],
    late: [],
    heldAnsweredInTime: 0,
    revoking: (m) => revoking.get(m) ?? new Set(),
    answered: (req) => answeredOf.get(req.id) ?? Promise.resolve(),
    close: async () => {},
  };

  const forward = (
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
  ): Promise<{ status: number; body: Buffer } | null> =>
    new Promise((resolve) => {
      const headers = { ...req.headers, host: target.host, 'content-length': String(body.length) };
      const up = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
        (ur) => {
          const chunks: Buffer[] = [];
          ur.on('data', (c: Buffer) => chunks.push(c));
          ur.on('end', () => {
            const out = Buffer.concat(chunks);
            if (!res.destroyed && !res.writableEnded) {
              const h = { ...ur.headers };
              delete h['transfer-encoding'];
              res.writeHead(ur.statusCode ?? 502, { ...h, 'content-length': String(out.length) });
              res.end(out);
            }
            resolve({ status: ur.statusCode ?? 502, body: out });
          });
          ur.on('error', () => resolve(null));
        },
      );
      up.on('error', () => {
        if (!res.destroyed && !res.headersSent) res.writeHead(502).end();
        resolve(null);
      });
      up.end(body);
    });

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const items = heartbeatItems(req.method ?? '', req.url ?? '', body.toString());
        if (!items) {
          await forward(req, res, body);
          return;
        }
        proxy.heartbeats++;
        const hb: HeartbeatRequest = {
          id: nextId++,
          route: /\/heartbeats(\?|$)/.test(req.url ?? '') ? 'batch' : 'single',
          items,
          arrivedAt: Date.now(),
          clientClosedAt: null,
        };
        res.on('close', () => {
          if (!res.writableFinished) hb.clientClosedAt ??= Date.now();
        });
        let markAnswered = () => {};
        answeredOf.set(hb.id, new Promise<void>((r) => (markAnswered = r)));
        const wait = policy.hold(hb, proxy);
        if (wait) {
          proxy.held.push(hb);
          await wait;
        } else {
          for (const it of items) onRequestItem(it);
          await policy.before?.(hb, proxy);
        }
        const forwardedAt = Date.now();
        const answer = await forward(req, res, body);
        const answeredAt = Date.now();
        markAnswered();
        if (!answer) return;
        const per = answersOf(hb.route, answer.status, answer.body.toString());
        if (hb.clientClosedAt !== null) {
          // Late only when the coordinator got it after the SDK had given up on it.
          if (wait && hb.clientClosedAt <= forwardedAt) {
            const statuses =
              typeof per === 'string'
                ? items.map(() => per)
                : items.map((_, i) => String(per[i]?.status ?? 'error item'));
            proxy.late.push({ request: hb, forwardedAt, answeredAt, statuses });
          }
          return;
        }
        if (wait) proxy.heldAnsweredInTime++;
        if (typeof per !== 'string') for (const [i, it] of items.entries()) onAnswerItem(it, per[i]);
      })();
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  proxy.url = `http://127.0.0.1:${port}`;
  proxy.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return proxy;
}

/** Options of `LateJoinPlan`. */
export interface LateJoinPlanOptions {
  /** Members (id prefix) whose epoch-0 joins are held. */
  joinsOf: string;
  /** Members (id prefix) every `everyNth` other heartbeat of which is held `steadyDelaysMs` (cycled). */
  steadyOf?: string;
  everyNth?: number;
  steadyDelaysMs?: number[];
  /** A held join is never forwarded before its client has given up and this long has passed, ms. */
  minHoldMs: number;
  /** A held join is forwarded after this long at the latest, ms. */
  maxHoldMs: number;
}

/**
 * The delay pattern of test/faults/late-heartbeats.test.ts. While armed:
 * - the first copy of each epoch-0 join (or rejoin) of a `joinsOf` member is held; the SDK times
 *   out, retries (not held: one copy per member at a time) and goes on. The held copy is
 *   forwarded at the moment it does most harm — just before another member's heartbeat, while its
 *   own member holds shards and is giving one up (told to, not yet reported REVOKED), so the
 *   shard's next owner asks right after it — or after `maxHoldMs` at the latest;
 * - every `everyNth` other heartbeat of a `steadyOf` member is held `steadyDelaysMs` (cycled),
 *   so copies at the member's previous epoch land after answers that moved it on.
 * Disarming forwards every held copy at once.
 */
export class LateJoinPlan implements DelayPolicy {
  armed = false;
  private readonly joins = new Map<HeartbeatRequest, { member: string; release: () => void }>();
  private readonly steadyCount = new Map<string, number>();
  private steadyHeld = 0;
  /** Held joins forwarded at a revoke of their member (the rest at `maxHoldMs` or disarm). */
  releasedAtRevoke = 0;

  constructor(private readonly o: LateJoinPlanOptions) {}

  hold(req: HeartbeatRequest): Promise<void> | null {
    if (!this.armed) return null;
    const heldMembers = new Set([...this.joins.values()].map((j) => j.member));
    const join = req.items.find(
      (it) => it.epoch === 0 && it.memberId.startsWith(this.o.joinsOf) && !heldMembers.has(it.memberId),
    );
    if (join) {
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => entry.release(), this.o.maxHoldMs);
        const entry = {
          member: join.memberId,
          release: () => {
            clearTimeout(timer);
            this.joins.delete(req);
            resolve();
          },
        };
        this.joins.set(req, entry);
      });
    }
    const steady = req.items.find((it) => it.epoch > 0 && it.memberId.startsWith(this.o.steadyOf ?? '\0'));
    if (!steady) return null;
    const n = (this.steadyCount.get(steady.memberId) ?? 0) + 1;
    this.steadyCount.set(steady.memberId, n);
    if (n % (this.o.everyNth ?? 3) !== 0) return null;
    const delays = this.o.steadyDelaysMs ?? [1500, 2000, 2500];
    const ms = delays[this.steadyHeld++ % delays.length]!;
    return new Promise((r) => setTimeout(r, ms));
  }

  async before(req: HeartbeatRequest, proxy: DelayProxy): Promise<void> {
    const now = Date.now();
    const from = new Set(req.items.map((it) => it.memberId));
    const due = [...this.joins].filter(
      ([held, j]) =>
        !from.has(j.member) &&
        held.clientClosedAt !== null &&
        now - held.arrivedAt >= this.o.minHoldMs &&
        proxy.revoking(j.member).size > 0,
    );
    for (const [held, j] of due) {
      this.releasedAtRevoke++;
      j.release();
      // Decided before the other member's request, which may then be granted the shard.
      await Promise.race([proxy.answered(held), new Promise((r) => setTimeout(r, 2000))]);
    }
  }

  /** Stops holding and forwards every held join now. */
  disarm(): void {
    this.armed = false;
    for (const j of [...this.joins.values()]) j.release();
  }
}
