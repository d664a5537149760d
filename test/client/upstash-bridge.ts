/**
 * A minimal Upstash REST endpoint in front of a real Redis, so the @upstash/redis adapter runs
 * against real Redis in tests: `POST /` runs one command, `POST /pipeline` several, replies are
 * `{result}` / `{error}` with every string base64-encoded when the client asks for it
 * (TOOLCHAIN "The Upstash REST protocol"). Only what the producer needs; not a full emulator.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';

/** A running bridge. */
export interface UpstashBridge {
  url: string;
  token: string;
  /** Commands received, as sent (for argument-encoding checks). */
  commands: string[][];
  close: () => Promise<void>;
}

const encode = (v: unknown, b64: boolean): unknown => {
  if (typeof v === 'string') return b64 ? Buffer.from(v, 'utf8').toString('base64') : v;
  if (Array.isArray(v)) return v.map((x) => encode(x, b64));
  return v;
};

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts a bridge on a free loopback port, forwarding to `redis` (a RESP2 client). */
export async function startUpstashBridge(redis: Redis): Promise<UpstashBridge> {
  const token = 'bridge-token';
  const commands: string[][] = [];
  const run = async (cmd: unknown[], b64: boolean): Promise<{ result?: unknown; error?: string }> => {
    // The REST API takes JSON numbers and booleans too; Redis wants strings.
    const args = cmd.map(String);
    commands.push(args);
    try {
      const [name, ...rest] = args;
      return { result: encode(await redis.call(name!, ...rest), b64) };
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err) };
    }
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method !== 'POST' || req.headers.authorization !== `Bearer ${token}`)
        return send(401, { error: 'Unauthorized' });
      const b64 = String(req.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64';
      const body = JSON.parse(await readBody(req)) as unknown[];
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/pipeline') {
        const out = [];
        for (const cmd of body as unknown[][]) out.push(await run(cmd, b64));
        return send(200, out);
      }
      const one = await run(body, b64);
      return send(one.error ? 400 : 200, one);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    commands,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
