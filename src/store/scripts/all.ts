/**
 * Every Lua script of the store, for preloading and for the SHA pin test.
 */
import { LOAD_LAYOUT1 } from '../layout1.js';
import { ACQUIRE_LOCK } from './acquire-lock.js';
import { COMMIT } from './commit.js';
import { ASSIGNMENT_READ, DUE_READ, MEMBERS_READ } from './group-reads.js';
import { LOAD } from './load.js';
import type { LuaScript } from './lua-script.js';
import { MEMBER_READ } from './member-read.js';
import { PROVISION } from './provision.js';
import { READ_SHARDS } from './read-shards.js';
import { REGISTER_STREAM } from './register-stream.js';
import { RELEASE_LOCK } from './release-lock.js';
import { RENEW_LOCK } from './renew-lock.js';
import { SHARD_SCRIPTS } from './shard-args.js';
import { STREAM_PROBE } from './stream-probe.js';

/** All scripts the store and the inspectors run. */
export const ALL_SCRIPTS: readonly LuaScript[] = [
  ACQUIRE_LOCK,
  RELEASE_LOCK,
  RENEW_LOCK,
  COMMIT,
  LOAD,
  MEMBER_READ,
  ASSIGNMENT_READ,
  MEMBERS_READ,
  DUE_READ,
  STREAM_PROBE,
  PROVISION,
  READ_SHARDS,
  LOAD_LAYOUT1,
  REGISTER_STREAM,
  ...SHARD_SCRIPTS,
];
