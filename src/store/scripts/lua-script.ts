/**
 * A Lua script as data: its text and pinned SHA1, so `EVALSHA` needs no hashing at runtime
 * (Workers have no node:crypto) and a test notices any edit to a script.
 */

/** One Lua script the store runs. */
export interface LuaScript {
  /** Short name for errors and tests. */
  readonly name: string;
  /** The script text, exactly as sent with EVAL. */
  readonly lua: string;
  /** SHA1 of `lua` in lowercase hex (pinned; checked by test/store/scripts.test.ts). */
  readonly sha1: string;
}
