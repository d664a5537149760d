/**
 * A protocol-correct member on its own timer over real HTTP, for the real-time scale bench:
 * it heartbeats at the interval each answer names (as the reference Python client does), keeps
 * exactly the shards it was last assigned (a dropped shard is released by leaving it out of
 * `ownedShards`, as the Python client does) and, like our consumer SDK, heartbeats at once after
 * finishing a revoke, and comes back up to a tenth of the interval early (as our SDK does).
 * With `BENCH_PROTOCOL_ONLY=1` it does neither: it only follows `heartbeatIntervalMs`, as the
 * reference Python client does, which is the slowest a correct client converges.
 */
import http from 'node:http';

/** Everything the bench counts about the answers members got. */
export class Tally {
  readonly statuses = new Map<string, number>();
  readonly latencies: number[] = [];
  /** Transport failures by message. */
  readonly errorKinds = new Map<string, number>();
  errors = 0;
  sent = 0;

  /** When each latency was recorded (performance.now at the answer). */
  readonly at: number[] = [];

  record(status: number, ms: number): void {
    this.sent++;
    this.latencies.push(ms);
    this.at.push(performance.now());
    const key = String(status);
    this.statuses.set(key, (this.statuses.get(key) ?? 0) + 1);
  }

  /** Non-2xx answers by HTTP status, e.g. `{ "503": 12 }`. */
  non2xx(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [s, n] of this.statuses) if (!s.startsWith('2')) out[s] = n;
    return out;
  }
}

/** Answers of one heartbeat as a member applies them. */
interface Answer {
  status: string;
  memberEpoch: number;
  metadataVersion: number;
  assignmentEpoch: number;
  heartbeatIntervalMs: number;
  assigned: number[];
  pending: number[];
}

/** Members that only follow the answers' interval (the reference Python client's behaviour). */
export const PROTOCOL_ONLY = process.env.BENCH_PROTOCOL_ONLY === '1';

// One keep-alive connection per member in flight, as members in separate processes would have.
const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });

/** POSTs JSON and resolves with the HTTP status and parsed body (never rejects). */
export function postJson(
  base: URL,
  path: string,
  body: unknown,
): Promise<{ status: number; body: unknown; ms: number } | { error: string; ms: number }> {
  const text = JSON.stringify(body);
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        path,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = raw;
          try {
            parsed = raw === '' ? null : JSON.parse(raw);
          } catch {
            // keep text
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, ms: performance.now() - t0 });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e) => resolve({ error: e.message, ms: performance.now() - t0 }));
    req.end(text);
  });
}

/** One simulated member. */
export class RealMember {
  epoch = 0;
  mv = 0;
  owned = new Set<number>();
  assigned: number[] = [];
  pending: number[] = [];
  lastStatus = '';
  lastAssignmentEpoch = 0;
  /** Shards dropped by the last answer, released by the next heartbeat. */
  private released: number[] = [];
  private available = 1;
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private inFlight: Promise<void> | null = null;
  private intervalMs = 3000;

  constructor(
    readonly id: string,
    private readonly base: URL,
    private readonly prefix: string,
    private readonly tally: Tally,
  ) {}

  private get path(): string {
    const p = encodeURIComponent(this.prefix);
    return `/coord/v1/streams/${p}/groups/${p}/members/${encodeURIComponent(this.id)}/heartbeat`;
  }

  /** Starts the heartbeat loop after `delayMs`. */
  start(delayMs = 0): void {
    this.running = true;
    this.schedule(delayMs);
  }

  /** Stops the loop and waits for an in-flight heartbeat. */
  async pause(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.inFlight;
  }

  /** True when this member holds exactly what its last OK answer assigned, with nothing pending. */
  settled(): boolean {
    return (
      this.lastStatus === 'OK' &&
      this.pending.length === 0 &&
      this.released.length === 0 &&
      this.owned.size === this.assigned.length &&
      this.assigned.every((s) => this.owned.has(s))
    );
  }

  /** Graceful leave: drop every shard, then send epoch -1. */
  async leave(): Promise<void> {
    await this.pause();
    this.owned.clear();
    await this.send({ epoch: -1, owned: [], revoking: [] });
  }

  /**
   * One heartbeat outside the loop: the steady one, or (with `toggleCapacity`) one whose
   * capacity report changed, which the coordinator cannot answer from its fast path.
   */
  async beatOnce(toggleCapacity = false): Promise<number> {
    if (toggleCapacity) this.available = this.available === 1 ? 0 : 1;
    const t0 = performance.now();
    await this.beat();
    return performance.now() - t0;
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.inFlight = this.beat().finally(() => {
        this.inFlight = null;
      });
    }, ms);
  }

  private async beat(): Promise<void> {
    const answer = await this.send({ epoch: this.epoch, owned: [...this.owned], revoking: [] });
    let next = this.intervalMs;
    if (answer) {
      this.released = [];
      const dropped = this.apply(answer);
      next = answer.heartbeatIntervalMs > 0 ? answer.heartbeatIntervalMs : this.intervalMs;
      this.intervalMs = next;
      if (dropped.length > 0) this.released = dropped;
      if (!PROTOCOL_ONLY) {
        // As our SDK does: up to a tenth early, so members answered together drift apart.
        next = Math.round(next * (1 - Math.random() * 0.1));
        // Our SDK heartbeats as soon as a revoke has finished (here: at once).
        if (dropped.length > 0) next = 0;
      }
    }
    this.schedule(next);
  }

  private async send(a: { epoch: number; owned: number[]; revoking: unknown[] }): Promise<Answer | null> {
    const body = {
      protocolVersion: 1,
      requestId: `r-${Math.random().toString(36).slice(2, 10)}`,
      memberId: this.id,
      memberName: this.id,
      memberEpoch: a.epoch,
      metadataVersion: this.mv,
      runtimeConsumerCapacity: { runtimeMaxConcurrency: 1, availableConcurrency: this.available },
      ownedShards:
        a.epoch === 0 ? [] : [...a.owned].sort((x, y) => x - y).map((shardIndex) => ({ shardIndex })),
      revokingShards: a.epoch === 0 ? [] : a.revoking,
      shardProgress: [],
    };
    const res = await postJson(this.base, this.path, body);
    if ('error' in res) {
      this.tally.errors++;
      this.tally.errorKinds.set(res.error, (this.tally.errorKinds.get(res.error) ?? 0) + 1);
      return null;
    }
    this.tally.record(res.status, res.ms);
    if (process.env.BENCH_SLOW && res.ms > 1000) {
      const b = res.body as { status?: string; memberEpoch?: number };
      console.error(
        `slow ${res.ms.toFixed(0)} ms sent ${Math.round(performance.timeOrigin + performance.now() - res.ms)}: ${this.id} epoch ${a.epoch} owned ${a.owned.length} -> ${res.status} ${b?.status} ${b?.memberEpoch}`,
      );
    }
    if (res.status !== 200) return null;
    const b = res.body as {
      status: string;
      memberEpoch: number;
      metadataVersion: number;
      assignmentEpoch: number;
      heartbeatIntervalMs: number;
      assignment: {
        assignedShards: Array<{ shardIndex: number }>;
        pendingShards: Array<{ shardIndex: number }>;
      };
    };
    return {
      status: b.status,
      memberEpoch: b.memberEpoch,
      metadataVersion: b.metadataVersion,
      assignmentEpoch: b.assignmentEpoch,
      heartbeatIntervalMs: b.heartbeatIntervalMs,
      assigned: b.assignment.assignedShards.map((s) => s.shardIndex),
      pending: b.assignment.pendingShards.map((s) => s.shardIndex),
    };
  }

  /** Applies an answer like a correct client; returns the shards it stopped reading. */
  private apply(a: Answer): number[] {
    this.lastStatus = a.status;
    const before = [...this.owned];
    switch (a.status) {
      case 'OK':
        this.epoch = a.memberEpoch;
        this.mv = a.metadataVersion;
        this.assigned = a.assigned;
        this.pending = a.pending;
        this.lastAssignmentEpoch = a.assignmentEpoch;
        this.owned = new Set(a.assigned);
        break;
      case 'SYNC_METADATA':
      case 'REVOKE_PENDING':
        this.epoch = a.memberEpoch;
        this.mv = a.metadataVersion;
        this.assigned = a.assigned;
        this.pending = a.pending;
        this.owned = new Set(before.filter((s) => a.assigned.includes(s)));
        break;
      case 'FENCED_MEMBER_EPOCH':
      case 'UNKNOWN_MEMBER_ID':
        this.epoch = 0;
        this.mv = 0;
        this.assigned = [];
        this.pending = [];
        this.owned = new Set();
        break;
      default:
        break;
    }
    return before.filter((s) => !this.owned.has(s));
  }
}
