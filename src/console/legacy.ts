/**
 * The parts of the browser script not yet ported to `src/console/app/`. Only
 * `scripts/build-console.ts` reads this: it bundles these parts as one module that imports the
 * ported helpers by name. It goes once every part is TypeScript.
 */
import { GROUP_JS } from './script-group.js';
import { GROUPS_JS } from './script-groups.js';
import { MEMBERS_JS } from './script-members.js';
import { MESSAGES_JS } from './script-messages.js';
import { MIGRATION_JS } from './script-migration.js';
import { SHARDS_JS } from './script-shards.js';

/** The legacy script parts in dependency order, then the start of the console. */
export const LEGACY_JS = [
  GROUPS_JS,
  SHARDS_JS,
  MEMBERS_JS,
  MIGRATION_JS,
  GROUP_JS,
  MESSAGES_JS,
  'boot();',
  '',
].join('\n');
