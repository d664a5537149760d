/**
 * The Redis port's conformance: the same cases on the ioredis port (standalone and Cluster) and
 * on the Upstash port (the real @upstash/redis client → the REST bridge → redis-server). Every
 * port method, the NOSCRIPT fallback (single calls and pipelines), and which failures are error
 * replies (Redis refused: nothing ran) and which are lost connections (it may have run).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { Redis as UpstashRedis } from '@upstash/redis';
import { type Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ioredisPort } from '../../src/redis/ioredis-port.js';
import type { RedisPort } from '../../src/redis/port.js';
import { upstashPort } from '../../src/redis/upstash-port.js';
import { isNoScriptError } from '../../src/store/run-script.js';
import type { LuaScript } from '../../src/store/scripts/lua-script.js';
import { createUpstashClient } from '../../src/store/upstash-client.js';
import { KEY_LOCKING_SHEBANG, sha1Hex } from '../../src/store/upstash-script.js';
import { parseRecord } from '../../src/store/xinfo-reply.js';
import { backends, standaloneClient, uniquePrefix } from '../support/redis.js';
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge.js';

/** A port under test, the raw client that sets up and checks its keys, and its request count. */
interface Subject {
  port: RedisPort;
  raw: Redis | Cluster;
  requests: () => number;
  close: () => Promise<void>;
}

interface Kind {
  name: string;
  client: 'ioredis' | 'upstash';
  cluster: boolean;
  make: () => Promise<Subject>;
  /** A port of the same kind whose server never answers or is gone. */
  unreachable: () => Promise<{ port: RedisPort; close: () => Promise<void> }>;
}

/** A TCP server that accepts connections and never answers. */
async function silentServer(): Promise<Server> {
  const server = createServer(() => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const kinds: Kind[] = [
  ...backends.map(
    (b): Kind => ({
      name: `ioredis ${b.name}`,
      client: 'ioredis',
      cluster: b.name === 'cluster',
      make: async () => {
        const client = b.make();
        const raw = b.make();
        let n = 0;
        return {
          port: ioredisPort(client, { onRequest: () => n++ }),
          raw,
          requests: () => n,
          close: async () => {
            client.disconnect();
            raw.disconnect();
          },
        };
      },
      unreachable: async () => {
        const server = await silentServer();
        const { port } = server.address() as { port: number };
        const dead = new Redis(port, '127.0.0.1', { commandTimeout: 100, enableReadyCheck: false });
        dead.on('error', () => {});
        return {
          port: ioredisPort(dead),
          close: async () => {
            dead.disconnect();
            server.close();
          },
        };
      },
    }),
  ),
  {
    name: 'upstash (REST bridge)',
    client: 'upstash',
    cluster: false,
    make: async () => {
      const bridge: UpstashBridge = await startUpstashBridge({ redisUrl: inject('redisUrl') });
      const raw = standaloneClient();
      let n = 0;
      const client = createUpstashClient({ url: bridge.url, token: bridge.token });
      return {
        port: upstashPort(client, { onRequest: () => n++ }),
        raw,
        requests: () => n,
        close: async () => {
          await bridge.close();
          raw.disconnect();
        },
      };
    },
    unreachable: async () => {
      const gone = await startUpstashBridge({ redisUrl: inject('redisUrl') });
      await gone.close();
      return {
        port: upstashPort(createUpstashClient({ url: gone.url, token: gone.token, retries: 0 })),
        close: async () => {},
      };
    },
  },
];

/** A script no server has seen yet (its first EVALSHA is answered NOSCRIPT). */
function freshScript(body = 'return {KEYS[1], ARGV[1]}'): LuaScript {
  const lua = `-- ${randomBytes(8).toString('hex')}\n${body}`;
  return { name: 'fresh', lua, sha1: sha1Hex(lua) };
}

const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  );

describe.each(kinds)('redis port ($name)', (kind) => {
  let s: Subject;
  let p: string;
  beforeAll(async () => {
    s = await kind.make();
    p = uniquePrefix('port');
  });
  afterAll(async () => {
    await s.close();
  });

  it('says what it is: its slots, its script caches and its optional capabilities', async () => {
    const { port } = s;
    // Once connected: a new Cluster client drops some of its seed connections as it learns the nodes.
    expect(await port.ping()).toBe(true);
    expect(port.oneSlot).toBe(!kind.cluster);
    expect(port.keysPerScript).toBeGreaterThanOrEqual(1);
    if (kind.cluster) {
      expect(port.keysPerScript).toBe(1);
      expect(port.scriptCacheOf('a')).not.toBe(port.scriptCacheOf('b'));
      expect(await port.clusterSlots!()).toEqual(expect.arrayContaining([expect.any(Array)]));
    } else {
      expect(port.scriptCacheOf('a')).toBe(port.scriptCacheOf('b'));
      expect(port.clusterSlots).toBeUndefined();
    }
    if (kind.client === 'ioredis') {
      const infos = await port.infoOfMasters!('server');
      // Every master of the Cluster (all six nodes while ioredis has not yet learned the roles).
      if (kind.cluster) expect(infos.length).toBeGreaterThanOrEqual(3);
      else expect(infos).toHaveLength(1);
      for (const info of infos) expect(info).toMatch(/redis_version:/);
      expect(port.offline!()).toBe(false);
    } else {
      // Upstash has neither CLUSTER nor INFO, and no connection of its own.
      expect(port.infoOfMasters).toBeUndefined();
      expect(port.offline).toBeUndefined();
      expect(port.close).toBeUndefined();
    }
  });

  it('GET, SET NX, SMEMBERS, SREM, EXISTS across slots and PING', async () => {
    const { port, raw } = s;
    expect(await port.get(`${p}:str`)).toBeNull();
    await port.setNx(`${p}:str`, 'first');
    await port.setNx(`${p}:str`, 'second');
    expect(await port.get(`${p}:str`)).toBe('first');
    await raw.sadd(`${p}:set`, 'b', 'a', 'c');
    expect((await port.smembers(`${p}:set`)).sort()).toEqual(['a', 'b', 'c']);
    await port.srem(`${p}:set`, 'b');
    expect((await port.smembers(`${p}:set`)).sort()).toEqual(['a', 'c']);
    expect(await port.smembers(`${p}:none`)).toEqual([]);
    // Keys of three different slots.
    expect(await port.exists([`${p}:str`, `${p}:set`, `${p}:none`])).toBe(2);
    expect(await port.exists([])).toBe(0);
    expect(await port.ping()).toBe(true);
  });

  it('XADD NOMKSTREAM with MAXLEN, and range reads both ways', async () => {
    const { port, raw } = s;
    const key = `${p}:stream`;
    expect(await port.xadd({ key, maxLen: 2, approx: false, fields: { a: '1' } })).toBeNull();
    expect(await raw.exists(key)).toBe(0);
    await raw.xadd(key, '1-0', 'seed', 'x');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await port.xadd({ key, maxLen: 2, approx: false, fields: { n: String(i), z: 'y' } }))!);
    expect(await raw.xlen(key)).toBe(2);
    const forward = ((await port.xrange(key, '-', '+', 5)) as unknown[]).map(parseRecord);
    expect(forward.map((r) => r?.id)).toEqual(ids.slice(1));
    expect(forward[0]!.fields).toEqual({ n: '1', z: 'y' });
    const back = ((await port.xrevrange(key, '+', '-', 1)) as unknown[]).map(parseRecord);
    expect(back.map((r) => r?.id)).toEqual([ids[2]]);
  });

  it('XGROUP SETID moves a group, with ENTRIESREAD when given (the lag then follows from it)', async () => {
    const { port, raw } = s;
    const key = `${p}:setid`;
    for (const id of ['1-0', '2-0', '3-0']) await raw.xadd(key, id, 'n', id);
    await raw.xgroup('CREATE', key, 'g', '0', 'ENTRIESREAD', 0);
    const group = async () => {
      const [info] = (await raw.xinfo('GROUPS', key)) as unknown[][];
      const e = new Map<unknown, unknown>();
      for (let i = 0; i + 1 < info!.length; i += 2) e.set(info![i], info![i + 1]);
      return { last: e.get('last-delivered-id'), read: e.get('entries-read'), lag: e.get('lag') };
    };
    await port.xgroupSetId(key, 'g', '2-0', 2);
    expect(await group()).toEqual({ last: '2-0', read: 2, lag: 1 });
    await port.xgroupSetId(key, 'g', '1-0', null);
    expect((await group()).last).toBe('1-0');
    await expect(port.xgroupSetId(`${p}:no-such-stream`, 'g', '0-0', 0)).rejects.toThrow();
  });

  it('runs a script by SHA, by text after NOSCRIPT, and counts requests as the client sends them', async () => {
    const { port } = s;
    const script = freshScript();
    const before = s.requests();
    expect(await port.runScript(script, [`${p}:k`], ['v'])).toEqual([`${p}:k`, 'v']);
    // One call for ioredis (loading is the server's business); two REST requests on Upstash.
    expect(s.requests() - before).toBe(kind.client === 'upstash' ? 2 : 1);
    const again = s.requests();
    expect(await port.runScript(script, [`${p}:k`], ['w'])).toEqual([`${p}:k`, 'w']);
    expect(s.requests() - again).toBe(1);
  });

  it('sends a script that declares its keys with the key-locking flag only on Upstash when asked', () => {
    const script = freshScript();
    expect(s.port.scriptAs(script, false)).toBe(script);
    // Off by default: Redis behind a self-hosted REST endpoint would refuse the flag.
    expect(s.port.scriptAs(script, true)).toBe(script);
    if (kind.client === 'upstash') {
      const locking = upstashPort(createUpstashClient({ url: 'http://127.0.0.1:1', token: 't' }), {
        keyLocking: true,
      });
      expect(locking.scriptAs(script, true).lua).toBe(KEY_LOCKING_SHEBANG + script.lua);
      expect(locking.scriptAs(script, false)).toBe(script);
    }
  });

  it('pipelines SCRIPT LOAD, EVALSHA, EVAL and XADD with one reply each, errors as replies', async () => {
    const { port, raw } = s;
    // One hash tag: a Cluster pipeline stays within one slot.
    const key = `{${p}}:pipe`;
    await raw.xadd(key, '1-0', 'seed', 'x');
    await raw.set(`{${p}}:str`, 'not a stream');
    const loaded = freshScript();
    const unknown = freshScript();
    const pipe = port.pipeline();
    pipe.scriptLoad(loaded.lua);
    pipe.evalsha(loaded.sha1, [key], ['a']);
    pipe.evalsha(unknown.sha1, [key], ['b']);
    pipe.eval(unknown.lua, [key], ['c']);
    pipe.xadd({ key, maxLen: 10, approx: true, fields: { f: 'v' } });
    pipe.xadd({ key: `{${p}}:str`, maxLen: 10, approx: true, fields: { f: 'v' } });
    const replies = await pipe.exec();
    expect(replies).toHaveLength(6);
    expect(replies[0]).toEqual([null, loaded.sha1]);
    expect(replies[1]).toEqual([null, [key, 'a']]);
    const [noscript] = replies[2]!;
    expect(port.replyText(noscript)).toMatch(/^NOSCRIPT/);
    expect(isNoScriptError(noscript, port.replyText)).toBe(true);
    expect(replies[3]).toEqual([null, [key, 'c']]);
    expect(replies[4]![0]).toBeNull();
    expect(String(replies[4]![1])).toMatch(/^\d+-\d+$/);
    expect(port.replyText(replies[5]![0])).toMatch(/^WRONGTYPE/);
  });

  it('reads an error reply as Redis refusing the command, without what was sent', async () => {
    const { port, raw } = s;
    await raw.xadd(`${p}:wrongtype`, '1-0', 'f', 'secret-payload');
    const err = await failureOf(port.get(`${p}:wrongtype`));
    expect(port.replyText(err)).toMatch(
      /^WRONGTYPE Operation against a key holding the wrong kind of value$/,
    );
    expect(port.timedOut(err)).toBe(false);
    const scripted = await failureOf(
      port.runScript(freshScript("return redis.error_reply('ERR boom')"), [], []),
    );
    expect(port.replyText(scripted)).toMatch(/boom/);
    // A script that ran and failed is not sent again: it is no NOSCRIPT.
    expect(isNoScriptError(scripted, port.replyText)).toBe(false);
    expect(port.refusal(port.replyText(err)!)).toBeNull();
  });

  it('reads a server that does not answer as no reply (the command may have run)', async () => {
    const dead = await kind.unreachable();
    try {
      const err = await failureOf(dead.port.ping());
      expect(dead.port.replyText(err)).toBeNull();
      // ioredis gives up after its commandTimeout; Upstash's fetch fails at once.
      expect(dead.port.timedOut(err)).toBe(kind.client === 'ioredis');
      const script = await failureOf(dead.port.runScript(freshScript(), [`${p}:k`], []));
      expect(dead.port.replyText(script)).toBeNull();
    } finally {
      await dead.close();
    }
  });

  it('names the deployment problems its error replies can mean', () => {
    const { port } = s;
    if (kind.client === 'ioredis') {
      expect(port.refusal('WRONGPASS invalid username-password pair')?.phrase).toBe('credentials refused');
      expect(port.refusal('NOAUTH Authentication required.')?.message).toContain('REDIS_URL');
      expect(port.refusal('NOPERM this user has no permissions')?.phrase).toBe('permission denied');
    } else {
      expect(port.refusal('Unauthorized')?.message).toContain('UPSTASH_REDIS_REST_TOKEN');
      expect(port.refusal('NOPERM no')?.phrase).toBe('credentials refused');
      expect(port.refusal('ERR Unexpected flag in script shebang: allow-key-locking')?.message).toContain(
        'UPSTASH_KEY_LOCKING=false',
      );
    }
    expect(port.refusal('LOADING Redis is loading')).toBeNull();
  });
});

describe('redis port > what only one client does', () => {
  it('ioredis: only a ReplyError is a reply; anything else may have run', () => {
    const port = ioredisPort(new Redis(inject('redisUrl'), { lazyConnect: true }));
    const named = (name: string, message: string) => Object.assign(new Error(message), { name });
    expect(port.replyText(named('ReplyError', 'NOSCRIPT No matching script.\nmore'))).toBe(
      'NOSCRIPT No matching script.',
    );
    expect(port.replyText(new Error('Connection is closed.'))).toBeNull();
    expect(port.timedOut(new Error('Command timed out'))).toBe(true);
  });

  it('ioredis: close() quits the client, which then says it is offline', async () => {
    const client = standaloneClient();
    const port = ioredisPort(client);
    expect(await port.ping()).toBe(true);
    expect(port.offline!()).toBe(false);
    await port.close!();
    if (client.status !== 'end') await new Promise((resolve) => client.once('end', resolve));
    expect(port.offline!()).toBe(true);
    expect(port.replyText(await failureOf(port.get('k')))).toBeNull();
  });

  it('upstash: the echoed command, the auto-pipeline prefix and a parse failure', () => {
    const port = upstashPort(createUpstashClient({ url: 'http://127.0.0.1:1', token: 't' }));
    const named = (message: string, name = 'UpstashError') => Object.assign(new Error(message), { name });
    expect(
      port.replyText(
        named('NOSCRIPT No matching script. Please use EVAL., command was: ["evalsha","abc",1,"k"]'),
      ),
    ).toBe('NOSCRIPT No matching script. Please use EVAL.');
    expect(port.replyText(named('Command failed: NOSCRIPT No matching script.'))).toBe(
      'NOSCRIPT No matching script.',
    );
    expect(isNoScriptError(named('Command failed: NOSCRIPT No matching script.'), port.replyText)).toBe(true);
    expect(isNoScriptError(named('Command failed: ERR other'), port.replyText)).toBe(false);
    expect(port.replyText(named('Unable to parse response body: <html>'))).toBeNull();
    expect(port.replyText(new TypeError('fetch failed'))).toBeNull();
  });

  it('upstash: falls back to EVAL through the client auto-pipeline too', async () => {
    const bridge = await startUpstashBridge({ redisUrl: inject('redisUrl') });
    try {
      const client = new UpstashRedis({
        url: bridge.url,
        token: bridge.token,
        automaticDeserialization: false,
        enableAutoPipelining: true,
        enableTelemetry: false,
      });
      const port = upstashPort(client);
      expect(await port.runScript(freshScript(), ['k'], ['v'])).toEqual(['k', 'v']);
    } finally {
      await bridge.close();
    }
  });

  it('upstash: a refused token is a reply naming the token', async () => {
    const bridge = await startUpstashBridge({ redisUrl: inject('redisUrl') });
    try {
      const port = upstashPort(createUpstashClient({ url: bridge.url, token: 'wrong', retries: 0 }));
      const err = await failureOf(port.get('k'));
      expect(port.refusal(port.replyText(err) ?? '')?.phrase).toBe('credentials refused');
    } finally {
      await bridge.close();
    }
  });
});
