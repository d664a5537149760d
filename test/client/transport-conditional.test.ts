/**
 * The transport's conditional GET, which the producer revalidates its routing with
 * (docs/producing.md#routing-after-a-scale): `If-None-Match` only when a tag is known, 304 read as
 * "not modified", and a 304 to a request that asked nothing treated as the error it is.
 */
import { describe, expect, it } from 'vitest';
import { CoordinatorHttpError } from '../../src/client/errors.js';
import { CoordinatorTransport, type FetchLike } from '../../src/client/transport.js';

function transportAnswering(reply: () => Response) {
  const sent: Array<string | null> = [];
  const fetch: FetchLike = (_url, init) => {
    sent.push(new Headers(init.headers).get('if-none-match'));
    return reply();
  };
  return { transport: new CoordinatorTransport({ baseUrl: 'http://coord.localhost', fetch }), sent };
}

const PATH = '/coord/v1/streams/orders/groups/orders/producer-routing';

describe('transport > conditional GET', () => {
  it('sends no If-None-Match without a tag and returns the body with its ETag', async () => {
    const { transport, sent } = transportAnswering(
      () => new Response('{"shardCount":4}', { status: 200, headers: { etag: '"1-4-0a"' } }),
    );
    expect(await transport.getIfNoneMatch(PATH, undefined)).toEqual({
      notModified: false,
      body: { shardCount: 4 },
      etag: '"1-4-0a"',
    });
    expect(sent).toEqual([null]);
  });

  it('sends the tag and reads a 304 as not modified', async () => {
    const { transport, sent } = transportAnswering(() => new Response(null, { status: 304 }));
    expect(await transport.getIfNoneMatch(PATH, '"1-4-0a"')).toEqual({ notModified: true });
    expect(sent).toEqual(['"1-4-0a"']);
  });

  it('refuses a 304 to a request that sent no tag', async () => {
    const { transport } = transportAnswering(() => new Response(null, { status: 304 }));
    await expect(transport.getIfNoneMatch(PATH, undefined)).rejects.toBeInstanceOf(CoordinatorHttpError);
    await expect(transport.get(PATH)).rejects.toBeInstanceOf(CoordinatorHttpError);
  });
});
