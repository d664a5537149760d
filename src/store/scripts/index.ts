/**
 * Every Lua script of the store and the inspectors, by name: the one list the SHA pin test
 * (test/store/scripts.test.ts) walks, and which it checks against the script modules on disk.
 */
import { ACQUIRE_LOCK } from './acquire-lock.js';
import { COMMIT } from './commit.js';
import { DELETE_SHARD } from './delete-shard.js';
import { ASSIGNMENT_READ, DUE_READ, MEMBERS_READ } from './group-reads.js';
import { LOAD } from './load.js';
import type { LuaScript } from './lua-script.js';
import { MEMBER_READ } from './member-read.js';
import { PENDING_SUMMARIES } from './pending-summaries.js';
import { PROVISION } from './provision.js';
import { PROVISION_EXISTING } from './provision-existing.js';
import { READ_SHARDS } from './read-shards.js';
import { REGISTER_STREAM } from './register-stream.js';
import { RELEASE_LOCK } from './release-lock.js';
import { RENEW_LOCK } from './renew-lock.js';
import { RETIRE_SHARD } from './retire-shard.js';
import { SHARD_EVIDENCE } from './shard-evidence.js';
import { STREAM_PROBE } from './stream-probe.js';

/** Every script, keyed by its `name` (a key that differs from the name fails the pin test). */
export const SCRIPTS = {
  'acquire-lock': ACQUIRE_LOCK,
  'release-lock': RELEASE_LOCK,
  'renew-lock': RENEW_LOCK,
  commit: COMMIT,
  load: LOAD,
  'member-read': MEMBER_READ,
  'assignment-read': ASSIGNMENT_READ,
  'members-read': MEMBERS_READ,
  'due-read': DUE_READ,
  'stream-probe': STREAM_PROBE,
  provision: PROVISION,
  'provision-existing': PROVISION_EXISTING,
  'read-shards': READ_SHARDS,
  'pending-summaries': PENDING_SUMMARIES,
  'register-stream': REGISTER_STREAM,
  'shard-evidence': SHARD_EVIDENCE,
  'retire-shard': RETIRE_SHARD,
  'delete-shard': DELETE_SHARD,
} as const satisfies Record<string, LuaScript>;

/** Name of one script of `SCRIPTS`. */
export type ScriptName = keyof typeof SCRIPTS;
