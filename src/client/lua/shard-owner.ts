/**
 * The shard-owner scripts moved to src/store/scripts/shard-owner.ts, with every other Lua script
 * of the project. This re-export stays only for bench/consumer.ts (and the path docs/consuming.md
 * names), which import `ownerKey` from here; it goes once they point at the new module.
 */
export { ownerKey } from '../../store/scripts/shard-owner.js';
