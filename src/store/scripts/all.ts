/**
 * Every Lua script of the store, for preloading and for the SHA pin test.
 */
import { COMMIT } from './commit.js';
import { FAST_HEARTBEAT } from './fast-heartbeat.js';
import { LOAD } from './load.js';
import type { LuaScript } from './lua-script.js';
import { PROVISION } from './provision.js';
import { RELEASE_LOCK } from './release-lock.js';

/** All scripts the store runs. */
export const ALL_SCRIPTS: readonly LuaScript[] = [RELEASE_LOCK, COMMIT, LOAD, FAST_HEARTBEAT, PROVISION];
