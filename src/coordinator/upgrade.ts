/**
 * Meeting a stream stored by an older coordinator (layout 1): it is converted in place under the
 * stream mutex (see `store/layout1.ts`), logged once, and the request carries on.
 */
import { holdLock, loadUpgrading } from '../store/critical-section.js';
import { type Ctx, criticalOptions } from './context.js';

/** Upgrades `prefix` to layout 2 if it is still in layout 1 (waits for the stream mutex). */
export async function upgradeStream(ctx: Ctx, prefix: string): Promise<void> {
  const opts = criticalOptions(ctx, ctx.config.lockWaitMs);
  const lease = await holdLock(ctx.store, prefix, opts);
  try {
    await loadUpgrading(ctx.store, prefix, [], ctx.protocol);
    ctx.log('warn', 'stream metadata upgraded from layout 1 to layout 2', { streamPrefix: prefix });
  } finally {
    await lease.release();
  }
}
