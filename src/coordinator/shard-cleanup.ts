/**
 * A retirement that leaves nothing behind: the retire script's check-and-delete of the shard
 * key, then — once the key is gone — the keys kept beside it in its slot (fenced-ack tokens,
 * idempotency incarnation; `store/scripts/clear-shard-keys.ts`). Both the scale-in drain and a
 * plain `DELETE /streams/{p}` retire through here, before their metadata commit: if the second
 * step fails or the process dies in between, the metadata still says the shard is not retired,
 * the retirement runs again (the key is absent by then) and the clearing with it.
 */
import type { RetireOutcome } from '../core/drain-evidence.js';
import type { Store } from '../store/store.js';

/** Retires `streamKey` and clears what was kept beside it; an outcome other than deleted/absent changes nothing. */
export async function retireShardClean(
  store: Store,
  streamKey: string,
  managedGroups: readonly string[],
): Promise<RetireOutcome> {
  if (!store.retireShard || !store.clearShardKeys)
    return { kind: 'error', message: 'this store cannot retire shards' };
  const outcome = await store.retireShard(streamKey, managedGroups);
  if (outcome.kind !== 'deleted' && outcome.kind !== 'absent') return outcome;
  try {
    if (await store.clearShardKeys(streamKey)) return outcome;
    // Only someone else can have created it again (producers write with NOMKSTREAM).
    return { kind: 'error', message: `shard key "${streamKey}" exists again after its deletion` };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { kind: 'error', message: `could not clear the keys kept beside "${streamKey}": ${why}` };
  }
}
