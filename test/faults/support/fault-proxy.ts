/**
 * A fault-injecting TCP proxy (loopback only) between a Redis client and its server. The test
 * switches it between pass-through, delay and blackhole at any time, and arms one-shot faults
 * on the reply path: lose the reply of a command that reached Redis (the command runs, the
 * client never sees the answer, the connection is then reset) or cut a reply halfway.
 */
import { createServer, type Server, Socket } from 'node:net';

/** Steady behaviour of every connection, old and new. */
export type ProxyMode =
  /** Bytes flow both ways unchanged. */
  | { kind: 'pass' }
  /** Every chunk, both ways, is held back `ms` (order kept). */
  | { kind: 'delay'; ms: number }
  /** Connections are accepted and kept open, but nothing is forwarded either way. */
  | { kind: 'blackhole' };

/** A one-shot fault on the reply path, applied to the next `count` matching commands. */
export interface ReplyFault {
  /** `drop`: forward the command, swallow its reply, reset; `cut`: forward half a reply, reset. */
  kind: 'drop' | 'cut';
  /** Commands whose bytes match arm the fault; others pass. @default every command */
  match?: RegExp;
  /** Matching commands to let through untouched first (lose the k-th reply: skip k-1). @default 0 */
  skip?: number;
  /** How many replies to hit. @default 1 */
  count?: number;
}

/** What the proxy did, for reports and assertions. */
export interface ProxyStats {
  connections: number;
  droppedReplies: number;
  cutReplies: number;
  /** The command bytes whose replies were hit, decoded for error messages. */
  hitCommands: string[];
}

/** A running proxy. */
export interface FaultProxy {
  port: number;
  /** `redis://127.0.0.1:<port>`. */
  url: string;
  stats: ProxyStats;
  setMode(mode: ProxyMode): void;
  /** Arms a reply fault; resolves once it has hit `count` replies. */
  armReplyFault(fault: ReplyFault): Promise<void>;
  /** Cancels an armed fault that has not hit yet (its promise never resolves). */
  disarm(): void;
  /** Destroys every open connection (clients see a reset). */
  resetAll(): void;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  server: Socket;
  /** Set while the reply to a matching command is to be hit. */
  armed: 'drop' | 'cut' | null;
}

/** Starts a proxy on a free loopback port forwarding to `target`. */
export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  let mode: ProxyMode = { kind: 'pass' };
  const pairs = new Set<Pair>();
  const stats: ProxyStats = { connections: 0, droppedReplies: 0, cutReplies: 0, hitCommands: [] };
  let fault: (Required<Omit<ReplyFault, 'match'>> & { match?: RegExp; done: () => void }) | null = null;

  const later = (fn: () => void) => {
    if (mode.kind === 'delay') setTimeout(fn, mode.ms);
    else fn();
  };
  const kill = (p: Pair) => {
    // An RST, as a crashed peer or a broken network path gives, not a polite FIN.
    if (!p.client.destroyed) p.client.resetAndDestroy();
    p.server.destroy();
    pairs.delete(p);
  };

  const srv: Server = createServer((client) => {
    stats.connections++;
    const server = new Socket();
    const pair: Pair = { client, server, armed: null };
    pairs.add(pair);
    client.setNoDelay(true);
    server.setNoDelay(true);
    server.connect(target.port, target.host);
    client.on('data', (chunk: Buffer) => {
      if (mode.kind === 'blackhole') return;
      if (fault && pair.armed === null && (!fault.match || fault.match.test(chunk.toString('latin1')))) {
        if (fault.skip > 0) fault.skip--;
        else {
          pair.armed = fault.kind;
          stats.hitCommands.push(chunk.toString('latin1').replace(/\r\n/g, ' ').slice(0, 200));
          if (--fault.count === 0) {
            const f = fault;
            fault = null;
            f.done();
          }
        }
      }
      later(() => {
        if (!server.destroyed) server.write(chunk);
      });
    });
    server.on('data', (chunk: Buffer) => {
      if (mode.kind === 'blackhole') return;
      if (pair.armed === 'drop') {
        // Redis has run the command (this is its answer): the client must never see it.
        stats.droppedReplies++;
        kill(pair);
        return;
      }
      if (pair.armed === 'cut') {
        stats.cutReplies++;
        const half = chunk.subarray(0, Math.max(1, Math.floor(chunk.length / 2)));
        client.write(half, () => kill(pair));
        pair.armed = null;
        return;
      }
      later(() => {
        if (!client.destroyed) client.write(chunk);
      });
    });
    const end = () => kill(pair);
    client.on('error', end);
    server.on('error', end);
    client.on('close', end);
    server.on('close', end);
  });
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => resolve());
  });
  const addr = srv.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;

  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stats,
    setMode(m) {
      mode = m;
    },
    armReplyFault(f) {
      return new Promise<void>((resolve) => {
        fault = { kind: f.kind, skip: f.skip ?? 0, count: f.count ?? 1, done: resolve };
        if (f.match) fault.match = f.match;
      });
    },
    disarm() {
      fault = null;
    },
    resetAll() {
      for (const p of [...pairs]) kill(p);
    },
    async close() {
      for (const p of [...pairs]) kill(p);
      await new Promise<void>((resolve) => srv.close(() => resolve()));
    },
  };
}
