/**
 * An Upstash REST endpoint in front of a real redis-server, so the Upstash store and the built
 * Worker run against real Redis (TOOLCHAIN "The Upstash REST protocol"):
 *
 * - always POST; `/` runs one command (`["SET","k","v"]`), `/pipeline` and `/multi-exec` run
 *   `[[…],[…]]` and answer an array of `{result}` / `{error}`;
 * - `Authorization: Bearer <token>` is checked (401 otherwise);
 * - with `Upstash-Encoding: base64` every string at every nesting level is base64, integers stay
 *   numbers, nil is null; without it strings are sent as UTF-8 text;
 * - a Redis error is `{"error": "<Redis text, unchanged>"}` (HTTP 400 for one command), so the
 *   client's NOSCRIPT fallback sees exactly what Redis said;
 * - every argument is stringified (JSON numbers and booleans arrive as such).
 *
 * Redis is reached with ioredis over RESP2 and raw Buffer replies, so binary values survive.
 * Every request is recorded, which is how tests count what one operation costs in requests.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';

/** One request the bridge served. */
export interface BridgeRequest {
  path: '/' | '/pipeline' | '/multi-exec';
  /** Command names with their arguments, as received (stringified). */
  commands: string[][];
}

/** A running bridge. */
export interface UpstashBridge {
  /** `http://127.0.0.1:<port>`: the `UPSTASH_REDIS_REST_URL`. */
  url: string;
  /** The `UPSTASH_REDIS_REST_TOKEN` it accepts. */
  token: string;
  /** Requests served since start or the last `reset()`, oldest first. */
  readonly requests: readonly BridgeRequest[];
  /**
   * Requests and commands received since start or the last `reset()`, as Upstash bills them:
   * every command of a pipeline or transaction counts, a script call (EVALSHA, EVAL) once.
   */
  readonly counts: { readonly requests: number; readonly commands: number };
  /** Forgets the recorded requests. */
  reset(): void;
  /** Stops listening and closes the Redis connection. */
  close(): Promise<void>;
}

/** Options of `startUpstashBridge`. */
export interface UpstashBridgeOptions {
  /** `redis://host:port` of the Redis to front. */
  redisUrl: string;
  /** Accepted bearer token. @default a random one */
  token?: string;
  /** Port on 127.0.0.1. @default 0 (free port) */
  port?: number;
}

type Reply = { result: unknown } | { error: string };

/** Encodes a raw RESP2 reply as the REST API does. */
export function encodeReply(v: unknown, base64: boolean): unknown {
  if (Buffer.isBuffer(v)) return base64 ? v.toString('base64') : v.toString('utf8');
  if (typeof v === 'string') return base64 ? Buffer.from(v, 'utf8').toString('base64') : v;
  if (Array.isArray(v)) return v.map((x) => encodeReply(x, base64));
  if (v === undefined) return null;
  return v;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function toArgs(cmd: unknown): string[] {
  if (!Array.isArray(cmd) || cmd.length === 0) throw new Error('ERR command must be a non-empty array');
  // The client sends numbers and booleans as JSON values; Redis wants bulk strings.
  return cmd.map((a) => (typeof a === 'string' ? a : typeof a === 'object' ? JSON.stringify(a) : String(a)));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Starts a bridge on 127.0.0.1 in front of `opts.redisUrl`. */
export async function startUpstashBridge(opts: UpstashBridgeOptions): Promise<UpstashBridge> {
  const token = opts.token ?? `bridge-${Math.random().toString(36).slice(2)}`;
  const redis = new Redis(opts.redisUrl, { protocol: 2, maxRetriesPerRequest: 1, lazyConnect: false });
  let requests: BridgeRequest[] = [];

  const one = async (args: string[], b64: boolean): Promise<Reply> => {
    try {
      const [name, ...rest] = args;
      return { result: encodeReply(await redis.callBuffer(name!, ...rest), b64) };
    } catch (err) {
      return { error: errorText(err) };
    }
  };

  const batch = async (cmds: string[][], atomic: boolean, b64: boolean): Promise<Reply[]> => {
    const p = atomic ? redis.multi() : redis.pipeline();
    for (const [name, ...rest] of cmds) p.callBuffer(name!, ...rest);
    const results = (await p.exec()) ?? [];
    return results.map(([err, value]) =>
      err ? { error: errorText(err) } : { result: encodeReply(value, b64) },
    );
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST') return send(res, 405, { error: 'ERR only POST is supported' });
    if (req.headers.authorization !== `Bearer ${token}`) return send(res, 401, { error: 'Unauthorized' });
    const b64 = String(req.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64';
    const path = (req.url ?? '/').split('?')[0];
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      return send(res, 400, { error: 'ERR failed to parse request body' });
    }
    try {
      if (path === '/pipeline' || path === '/multi-exec') {
        if (!Array.isArray(body) || body.length === 0) throw new Error('ERR empty pipeline');
        const cmds = body.map(toArgs);
        requests.push({ path, commands: cmds });
        return send(res, 200, await batch(cmds, path === '/multi-exec', b64));
      }
      if (path !== '/' && path !== '') return send(res, 404, { error: `ERR unknown path ${path}` });
      const args = toArgs(body);
      requests.push({ path: '/', commands: [args] });
      const reply = await one(args, b64);
      return send(res, 'error' in reply ? 400 : 200, reply);
    } catch (err) {
      return send(res, 400, { error: errorText(err) });
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) send(res, 500, { error: `ERR bridge failure: ${errorText(err)}` });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    get requests() {
      return requests;
    },
    get counts() {
      return { requests: requests.length, commands: requests.reduce((n, r) => n + r.commands.length, 0) };
    },
    reset() {
      requests = [];
    },
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      redis.disconnect();
    },
  };
}
