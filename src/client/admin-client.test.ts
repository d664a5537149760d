import { describe, expect, it } from 'vitest';
import { matchRoute } from '../http/route-table.js';
import { AdminClient, type AdminMethod, type AdminSendOptions } from './admin-client.js';

interface Sent {
  method: AdminMethod;
  path: string;
  body: unknown;
  options: AdminSendOptions | undefined;
}

/** A client whose sender records every request and answers `{}`. */
function recording(): { client: AdminClient; sent: Sent[] } {
  const sent: Sent[] = [];
  const client = new AdminClient(async (method, path, body, options) => {
    sent.push({ method, path, body, options });
    return {};
  });
  return { client, sent };
}

/** Every operation once, with names that need percent-encoding. */
async function callEveryOperation(c: AdminClient): Promise<void> {
  const [p, g, id] = ['or ders', 'g/1', 'rs 1'];
  await c.login('alice', 'pw');
  await c.session();
  await c.health();
  await c.groups();
  await c.createStream(p, { shardCount: 2 } as never);
  await c.group(p, g);
  await c.monitoringGroup(p, g);
  await c.deleteGroup(p, g, {} as never);
  await c.scaleStream(p, { targetShardCount: 3 } as never);
  await c.scaleGroup(p, g, { targetShardCount: 3 } as never);
  await c.migration(p, g, id);
  await c.rollback(p, g, id, {} as never);
  await c.members(p, g);
  await c.assignments(p, g);
  await c.offsets(p, g);
  await c.resetOffsets(p, g, { to: 'earliest' } as never);
  await c.migrations(p, g);
  await c.messages(p, g, 1, { direction: 'BACKWARD', limit: 20, cursor: '5-0' });
  await c.lag(p, g);
  await c.allShardMessages(p, g, { direction: 'BACKWARD', limit: 20, cursor: null });
}

describe('AdminClient', () => {
  it('addresses a declared operation with every call, parameters decoded back to what was given', async () => {
    const { client, sent } = recording();
    await callEveryOperation(client);
    expect(sent).toHaveLength(20);
    const operations = new Set<string>();
    for (const s of sent) {
      const [path] = s.path.split('?');
      const match = matchRoute(s.method, `/coord/v1${path}`);
      expect(match, `${s.method} ${s.path}`).not.toBeNull();
      operations.add(match!.route.operationId);
      const { streamPrefix, consumerGroup } = match!.params;
      if (streamPrefix !== undefined) expect(streamPrefix).toBe('or ders');
      if (consumerGroup !== undefined) expect(consumerGroup).toBe('g/1');
    }
    expect(operations.size).toBe(20);
  });

  it('sends login anonymously and nothing else', async () => {
    const { client, sent } = recording();
    await callEveryOperation(client);
    const anonymous = sent.filter((s) => s.options?.anonymous);
    expect(anonymous.map((s) => s.path)).toEqual(['/auth/login']);
    expect(anonymous[0]!.body).toEqual({ username: 'alice', password: 'pw' });
  });

  it('names the group of an all-shards page in its query, with shardIndex=all', async () => {
    const { client, sent } = recording();
    await client.allShardMessages('or ders', 'g/1', { direction: 'FORWARD', limit: 5, cursor: 'all:0=1-0' });
    const query = new URLSearchParams(sent[0]!.path.split('?')[1]);
    expect(Object.fromEntries(query)).toEqual({
      streamPrefix: 'or ders',
      consumerGroup: 'g/1',
      shardIndex: 'all',
      direction: 'FORWARD',
      limit: '5',
      cursor: 'all:0=1-0',
    });
  });

  it('puts the message page query in the query string, cursor only when given', async () => {
    const { client, sent } = recording();
    await client.messages('p', 'g', 0, { direction: 'FORWARD', limit: 5, cursor: '1-0' });
    await client.messages('p', 'g', 0, { direction: 'FORWARD', limit: 5, cursor: null });
    expect(sent.map((s) => s.path.split('?')[1])).toEqual([
      'direction=FORWARD&limit=5&cursor=1-0',
      'direction=FORWARD&limit=5',
    ]);
  });

  it('pages the group list: limit and cursor only when given, and allGroups follows nextCursor to the end', async () => {
    const sent: string[] = [];
    const pages: Record<string, { groups: Array<{ consumerGroup: string }>; nextCursor?: string | null }> = {
      '': { groups: [{ consumerGroup: 'a' }], nextCursor: 'c1' },
      'cursor=c1': { groups: [{ consumerGroup: 'b' }], nextCursor: 'c2' },
      'cursor=c2': { groups: [{ consumerGroup: 'c' }], nextCursor: null },
    };
    const client = new AdminClient(async (_method, path) => {
      sent.push(path);
      return pages[path.split('?')[1] ?? ''];
    });
    await client.groups({ limit: 50, cursor: 'x y' });
    await client.groups({ limit: 50, cursor: null });
    await client.groups();
    expect(sent).toEqual([
      '/monitoring/groups?limit=50&cursor=x+y',
      '/monitoring/groups?limit=50',
      '/monitoring/groups',
    ]);
    sent.length = 0;
    expect((await client.allGroups()).map((g) => g.consumerGroup)).toEqual(['a', 'b', 'c']);
    expect(sent).toEqual([
      '/monitoring/groups',
      '/monitoring/groups?cursor=c1',
      '/monitoring/groups?cursor=c2',
    ]);
    // A server without paging (no nextCursor): its one answer is the whole list.
    delete pages['']!.nextCursor;
    expect((await client.allGroups()).map((g) => g.consumerGroup)).toEqual(['a']);
  });
});
