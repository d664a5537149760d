/** A refusal printed by the CLI names the CLI's flags and arguments, not the API's fields (docs/cli.md#errors). */
import { describe, expect, it } from 'vitest';
import { asFlags } from '../../cli/cli-api-names.js';

describe('cli > API names in refusals', () => {
  it.each([
    ['targetShardCount: must be at most 1024', '<n>: must be at most 1024'],
    ['initialShardCount: must be at most 64', '--shards: must be at most 64'],
    [
      'stream "o" has 4 shards; a group cannot ask for 8 (omit initialShardCount to join at the current count)',
      'stream "o" has 4 shards; a group cannot ask for 8 (omit --shards to join at the current count)',
    ],
    [
      'id: must be a Redis stream id (<ms>-<seq>) within 64 bits',
      '--to: must be a Redis stream id (<ms>-<seq>) within 64 bits',
    ],
    [
      'shards[1]: Too big; requestedBy: must not be blank',
      '--shards[1]: Too big; --requested-by: must not be blank',
    ],
    [
      'group "g" of stream "o" has 1 active member(s); pass force=true to delete anyway',
      'group "g" of stream "o" has 1 active member(s); pass --force to delete anyway',
    ],
    // Words that are no field of the request stay as they are.
    ['body: not JSON; stream id 5-0 is after the last', 'body: not JSON; stream id 5-0 is after the last'],
  ])('%s', (detail, shown) => {
    expect(asFlags(detail)).toBe(shown);
  });
});
