/** Which of the store's scripts may run under Upstash's per-key locks (docs/workers.md#upstash-key-locking). */
import { ACQUIRE_LOCK } from './scripts/acquire-lock.js';
import { CLEAR_SHARD_KEYS } from './scripts/clear-shard-keys.js';
import { COMMIT } from './scripts/commit.js';
import { DELETE_SHARD } from './scripts/delete-shard.js';
import { DUE_CLAIM, DUE_MARK, DUE_SEED, DUE_SETTLE } from './scripts/due-index.js';
import { ASSIGNMENT_READ, DUE_READ, GROUP_RECORDS, MEMBERS_READ } from './scripts/group-reads.js';
import { LOAD } from './scripts/load.js';
import type { LuaScript } from './scripts/lua-script.js';
import { MEMBER_READ } from './scripts/member-read.js';
import { PROVISION } from './scripts/provision.js';
import { PROVISION_EXISTING } from './scripts/provision-existing.js';
import { REGISTER_STREAM } from './scripts/register-stream.js';
import { RELEASE_LOCK } from './scripts/release-lock.js';
import { RENEW_LOCK } from './scripts/renew-lock.js';
import { RETIRE_SHARD } from './scripts/retire-shard.js';
import { SHARD_EVIDENCE } from './scripts/shard-evidence.js';
import { STEADY_READ } from './scripts/steady-lua.js';

/**
 * The store's scripts that touch only the keys they are passed (no key name built in Lua), so
 * they may run under Upstash's per-key locks: the locks, the group reads, the whole load, the
 * commit, the streams index, the due index and the shard scripts. Not the sweep's stream probe: it names each
 * group's keys itself from the stream's heartbeat view. The member read and the commit also call
 * INFO, which names no key and which they call under pcall (where it is refused, no restart is
 * detected, as before). A script not listed runs under the global lock, so a new one is safe
 * until it is checked and added here.
 */
export const DECLARING: ReadonlySet<LuaScript> = new Set([
  ACQUIRE_LOCK,
  RENEW_LOCK,
  RELEASE_LOCK,
  LOAD,
  MEMBER_READ,
  STEADY_READ,
  ASSIGNMENT_READ,
  MEMBERS_READ,
  DUE_READ,
  GROUP_RECORDS,
  COMMIT,
  REGISTER_STREAM,
  PROVISION,
  PROVISION_EXISTING,
  SHARD_EVIDENCE,
  RETIRE_SHARD,
  DELETE_SHARD,
  CLEAR_SHARD_KEYS,
  DUE_MARK,
  DUE_CLAIM,
  DUE_SETTLE,
  DUE_SEED,
]);
