/**
 * Every Lua script of the project by name (the store's, the inspectors', the producer's and the
 * consumer's, all in src/store/scripts): the one list the SHA pin test (test/store/scripts.test.ts)
 * walks, and which it checks against the modules on disk.
 */
import { ACQUIRE_LOCK } from '../../src/store/scripts/acquire-lock.js';
import { CLEAR_SHARD_KEYS } from '../../src/store/scripts/clear-shard-keys.js';
import { COMMIT } from '../../src/store/scripts/commit.js';
import { COUNT_RANGE } from '../../src/store/scripts/count-range.js';
import { DELETE_SHARD } from '../../src/store/scripts/delete-shard.js';
import { DUE_CLAIM, DUE_MARK, DUE_SEED, DUE_SETTLE } from '../../src/store/scripts/due-index.js';
import {
  ASSIGNMENT_READ,
  DUE_READ,
  GROUP_RECORDS,
  MEMBERS_READ,
} from '../../src/store/scripts/group-reads.js';
import { IDEMPOTENT_BATCH } from '../../src/store/scripts/idempotent-batch.js';
import { IDEMPOTENT_PUBLISH } from '../../src/store/scripts/idempotent-publish.js';
import { LOAD } from '../../src/store/scripts/load.js';
import type { LuaScript } from '../../src/store/scripts/lua-script.js';
import { MEMBER_READ } from '../../src/store/scripts/member-read.js';
import { PENDING_ENTRIES } from '../../src/store/scripts/pending-entries.js';
import { PENDING_SUMMARIES } from '../../src/store/scripts/pending-summaries.js';
import { PROVISION } from '../../src/store/scripts/provision.js';
import { PROVISION_EXISTING } from '../../src/store/scripts/provision-existing.js';
import { READ_SHARDS } from '../../src/store/scripts/read-shards.js';
import { REGISTER_STREAM } from '../../src/store/scripts/register-stream.js';
import { RELEASE_LOCK } from '../../src/store/scripts/release-lock.js';
import { RENEW_LOCK } from '../../src/store/scripts/renew-lock.js';
import { RETIRE_SHARD } from '../../src/store/scripts/retire-shard.js';
import { SHARD_EVIDENCE } from '../../src/store/scripts/shard-evidence.js';
import { FENCED_COMMAND, OWNER_CLAIM, OWNER_RELEASE } from '../../src/store/scripts/shard-owner.js';
import { STEADY_READ } from '../../src/store/scripts/steady-lua.js';
import { STREAM_PROBE } from '../../src/store/scripts/stream-probe.js';

/** Every script, keyed by its `name` (a key that differs from the name fails the pin test). */
export const SCRIPTS = {
  'acquire-lock': ACQUIRE_LOCK,
  'release-lock': RELEASE_LOCK,
  'renew-lock': RENEW_LOCK,
  commit: COMMIT,
  load: LOAD,
  'member-read': MEMBER_READ,
  'steady-read': STEADY_READ,
  'assignment-read': ASSIGNMENT_READ,
  'members-read': MEMBERS_READ,
  'due-read': DUE_READ,
  'group-records': GROUP_RECORDS,
  'stream-probe': STREAM_PROBE,
  'due-mark': DUE_MARK,
  'due-claim': DUE_CLAIM,
  'due-settle': DUE_SETTLE,
  'due-seed': DUE_SEED,
  provision: PROVISION,
  'provision-existing': PROVISION_EXISTING,
  'read-shards': READ_SHARDS,
  'count-range': COUNT_RANGE,
  'pending-summaries': PENDING_SUMMARIES,
  'pending-entries': PENDING_ENTRIES,
  'register-stream': REGISTER_STREAM,
  'shard-evidence': SHARD_EVIDENCE,
  'retire-shard': RETIRE_SHARD,
  'delete-shard': DELETE_SHARD,
  'clear-shard-keys': CLEAR_SHARD_KEYS,
  'idempotent-publish': IDEMPOTENT_PUBLISH,
  'idempotent-publish-batch': IDEMPOTENT_BATCH,
  'shard-owner-claim': OWNER_CLAIM,
  'shard-owner-release': OWNER_RELEASE,
  'shard-fenced-command': FENCED_COMMAND,
} as const satisfies Record<string, LuaScript>;

/** Name of one script of `SCRIPTS`. */
export type ScriptName = keyof typeof SCRIPTS;
