/**
 * The parts of the browser script not yet ported to `src/console/app/`, as the one strict-mode
 * function scope they were written for. Only `scripts/build-console.ts` reads this; it goes
 * once every part is TypeScript.
 */
import { CORE_JS } from './script-core.js';
import { GROUP_JS } from './script-group.js';
import { GROUPS_JS } from './script-groups.js';
import { MEMBERS_JS } from './script-members.js';
import { MESSAGES_JS } from './script-messages.js';
import { MIGRATION_JS } from './script-migration.js';
import { SESSION_JS } from './script-session.js';
import { SHARDS_JS } from './script-shards.js';
import { BOOT_JS, SHELL_JS } from './script-shell.js';

/** The legacy script parts in dependency order, as the esbuild entry's source. */
export const LEGACY_JS = [
  '(function () {',
  "'use strict';",
  CORE_JS,
  SHELL_JS,
  SESSION_JS,
  GROUPS_JS,
  SHARDS_JS,
  MEMBERS_JS,
  MIGRATION_JS,
  GROUP_JS,
  MESSAGES_JS,
  BOOT_JS,
  '})();',
  '',
].join('\n');
