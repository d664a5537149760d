/**
 * Consumer SDK benchmark (docs/performance.md#targets: ≥ 0.8× a raw `XREADGROUP`+`XACK` loop at the same batch
 * size): a pre-filled stream is drained once by the SDK (one member, handler answering 'ack')
 * and once by a raw ioredis loop (`XREADGROUP COUNT n` then one `XACK` of the batch, one loop
 * and connection per shard), on the same Redis in the same run, in alternating order. The clock
 * starts at the first read (SDK: once the shards are assigned, so the join handshake is not
 * counted; both sides open their read connections inside the clock) and stops when every record
 * is acked (PEL empty). The coordinator is an in-process double that
 * assigns every shard, so it is not what is measured. The SDK runs twice: with fenced acks
 * (the default: one ownership-checking script per ack batch) and with `fencedAcks: false`
 * (plain `XACK`). Median of 3 trials; asserts nothing.
 */
import { Redis } from 'ioredis';
import { createConsumer } from '../src/client/consumer.js';
import type { FetchLike } from '../src/client/transport.js';
import { ownerKey } from '../src/store/scripts/shard-owner.js';

const RECORDS = Number(process.env.BENCH_CONSUMER_RECORDS ?? 50_000);
const TRIALS = 3;
const PAYLOAD = 'x'.repeat(100);
const SCENARIOS = [
  { shards: 1, batch: 10 },
  { shards: 1, batch: 100 },
  { shards: 4, batch: 100 },
];

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function table(headers: string[], rows: Array<Array<string | number>>): string {
  const cells = rows.map((r) => r.map(String));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

/** A coordinator double: every heartbeat is answered OK with all shards assigned. */
function coordinatorDouble(shards: number): FetchLike {
  return async (_url, init) => {
    const req = JSON.parse(String(init.body));
    const body = {
      responseTo: req.requestId,
      status: 'OK',
      memberId: req.memberId,
      memberEpoch: req.memberEpoch === -1 ? -1 : 1,
      heartbeatIntervalMs: 3000,
      rebalanceTimeoutMs: 60_000,
      memberLeaseTtlMs: 15_000,
      groupEpoch: 1,
      assignmentEpoch: 1,
      metadataVersion: 1,
      assignment: {
        assignedShards:
          req.memberEpoch === -1 ? [] : Array.from({ length: shards }, (_, i) => ({ shardIndex: i })),
        pendingShards: [],
        metadataVersion: 1,
      },
    };
    return new Response(JSON.stringify(body), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  };
}

/** Creates the group and writes RECORDS entries spread evenly over the shards. */
async function fill(redis: Redis, prefix: string, shards: number): Promise<void> {
  for (let s = 0; s < shards; s++) await redis.xgroup('CREATE', `${prefix}:${s}`, prefix, '0', 'MKSTREAM');
  const chunk = 1000;
  for (let i = 0; i < RECORDS; i += chunk) {
    const p = redis.pipeline();
    for (let j = i; j < Math.min(RECORDS, i + chunk); j++)
      p.xadd(`${prefix}:${j % shards}`, '*', 'payload', PAYLOAD, 'seq', String(j));
    await p.exec();
  }
}

async function pending(redis: Redis, prefix: string, shards: number): Promise<number> {
  let n = 0;
  for (let s = 0; s < shards; s++)
    n += Number(((await redis.xpending(`${prefix}:${s}`, prefix)) as unknown[])[0]);
  return n;
}

async function cleanup(redis: Redis, prefix: string, shards: number): Promise<void> {
  const keys = Array.from({ length: shards }, (_, s) => `${prefix}:${s}`);
  await redis.del(...keys, ...keys.map(ownerKey));
}

/** Raw loop per shard: XREADGROUP COUNT batch, then XACK of the whole batch; records per second. */
async function runRaw(
  redisUrl: string,
  redis: Redis,
  prefix: string,
  shards: number,
  batch: number,
): Promise<number> {
  const conns = Array.from({ length: shards }, () => new Redis(redisUrl));
  const t0 = performance.now();
  await Promise.all(
    conns.map(async (conn, s) => {
      const key = `${prefix}:${s}`;
      for (;;) {
        const reply = (await conn.xreadgroup(
          'GROUP',
          prefix,
          'raw',
          'COUNT',
          batch,
          'STREAMS',
          key,
          '>',
        )) as Array<[string, Array<[string, string[]]>]> | null;
        const entries = reply?.[0]?.[1] ?? [];
        if (entries.length === 0) return;
        await conn.xack(key, prefix, ...entries.map(([id]) => id));
      }
    }),
  );
  const elapsed = performance.now() - t0;
  if ((await pending(redis, prefix, shards)) !== 0) throw new Error('raw loop left entries pending');
  for (const c of conns) c.disconnect();
  return (RECORDS / elapsed) * 1000;
}

/** The SDK with one member on every shard; records per second until the PEL is empty. */
async function runSdk(
  redis: Redis,
  prefix: string,
  shards: number,
  batch: number,
  fencedAcks: boolean,
): Promise<number> {
  let handled = 0;
  let allHandled: () => void = () => {};
  const done = new Promise<void>((r) => {
    allHandled = r;
  });
  const consumer = createConsumer({
    coordinatorUrl: 'http://coordinator.bench',
    fetch: coordinatorDouble(shards),
    streamPrefix: prefix,
    memberBase: 'bench',
    redis,
    pollBatchSize: batch,
    blockMs: 1000,
    fencedAcks,
    handler: () => {
      if (++handled === RECORDS) allHandled();
      return 'ack';
    },
  });
  // The clock starts when the coordinator has assigned the shards (the join handshake with the
  // in-process double is not throughput); opening the read connections and reading are timed.
  let t0 = 0;
  consumer.on('assigned', () => {
    t0 ||= performance.now();
  });
  consumer.start();
  await done;
  while ((await pending(redis, prefix, shards)) !== 0) await new Promise((r) => setTimeout(r, 1));
  const elapsed = performance.now() - t0;
  await consumer.close();
  return (RECORDS / elapsed) * 1000;
}

/** Runs every scenario; returns the markdown table. */
export async function benchConsumer(redisUrl: string): Promise<string> {
  const redis = new Redis(redisUrl);
  const rows: Array<Array<string | number>> = [];
  try {
    for (const { shards, batch } of SCENARIOS) {
      const sdk: number[] = [];
      const plain: number[] = [];
      const raw: number[] = [];
      for (let t = 0; t < TRIALS; t++) {
        const sides = [
          async () => {
            const p = `bench-cons-sdk-${Date.now()}-${t}`;
            await fill(redis, p, shards);
            sdk.push(await runSdk(redis, p, shards, batch, true));
            await cleanup(redis, p, shards);
          },
          async () => {
            const p = `bench-cons-plain-${Date.now()}-${t}`;
            await fill(redis, p, shards);
            plain.push(await runSdk(redis, p, shards, batch, false));
            await cleanup(redis, p, shards);
          },
          async () => {
            const p = `bench-cons-raw-${Date.now()}-${t}`;
            await fill(redis, p, shards);
            raw.push(await runRaw(redisUrl, redis, p, shards, batch));
            await cleanup(redis, p, shards);
          },
        ];
        if (t % 2 === 1) sides.reverse();
        for (const side of sides) await side();
      }
      const ratio = median(sdk) / median(raw);
      rows.push([
        `1 member × ${shards} shard${shards > 1 ? 's' : ''}`,
        batch,
        median(sdk).toFixed(0),
        median(plain).toFixed(0),
        median(raw).toFixed(0),
        `${ratio.toFixed(2)}×`,
        `${(median(sdk) / median(plain)).toFixed(2)}×`,
        ratio >= 0.8 ? 'yes' : 'NO',
      ]);
    }
  } finally {
    redis.disconnect();
  }
  return [
    `### Consumer SDK throughput (${RECORDS} pre-filled records, ${PAYLOAD.length}-byte payload, median of ${TRIALS} trials)`,
    table(
      [
        'layout',
        'batch',
        'SDK rec/s (fenced acks)',
        'SDK rec/s (plain XACK)',
        'raw XREADGROUP+XACK rec/s',
        'fenced / raw',
        'fenced / plain',
        '≥ 0.8×',
      ],
      rows,
    ),
  ].join('\n');
}
