/**
 * Lua shared by the group scripts: the prelude that derives a group's keys from the stream key,
 * kept with every other Lua text of the project (the key names themselves live in ../keys.ts).
 */
import { GROUP_KEY_PARTS } from '../keys.js';

/**
 * Lua that builds `K`: `K[1]` = KEYS[1] (the stream hash, which carries the hash tag) and
 * `K[2..13]` = the 12 keys of the group whose encoded name is `nameExpr`, in script order. Scripts
 * then declare one key only: the others share its slot, so this works on Redis Cluster too.
 */
export function groupKeysLua(nameExpr: string): string {
  const parts = GROUP_KEY_PARTS.map((p) => `'${p}'`).join(', ');
  return `local K = { KEYS[1] }
do
  local base = string.sub(KEYS[1], 1, -8)
  for i, part in ipairs({ ${parts} }) do
    K[i + 1] = base .. ':' .. part .. ':' .. ${nameExpr}
  end
end
`;
}
