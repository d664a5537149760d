/**
 * The console's static assets as strings (no build step, no files at run time), so the same
 * bytes are served by the Node adapter and bundled into the Worker.
 */
import { CONSOLE_CSS_PATH, CONSOLE_HTML, CONSOLE_JS_PATH } from './page.js';
import { CORE_JS } from './script-core.js';
import { GROUP_JS } from './script-group.js';
import { GROUPS_JS } from './script-groups.js';
import { MEMBERS_JS } from './script-members.js';
import { MESSAGES_JS } from './script-messages.js';
import { MIGRATION_JS } from './script-migration.js';
import { SESSION_JS } from './script-session.js';
import { SHARDS_JS } from './script-shards.js';
import { BOOT_JS, SHELL_JS } from './script-shell.js';
import { CONSOLE_CSS } from './style.js';

export { CONSOLE_BASE, CONSOLE_CSS_PATH, CONSOLE_HTML, CONSOLE_JS_PATH } from './page.js';
export { CONSOLE_CSS } from './style.js';

/** The whole browser script: one strict-mode function scope, parts in dependency order. */
export const CONSOLE_JS = [
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

/** One static asset: its body and content type. */
export interface ConsoleAsset {
  body: string;
  contentType: string;
}

/** Assets by request path. */
export const CONSOLE_ASSETS: ReadonlyMap<string, ConsoleAsset> = new Map([
  [CONSOLE_JS_PATH, { body: CONSOLE_JS, contentType: 'text/javascript; charset=utf-8' }],
  [CONSOLE_CSS_PATH, { body: CONSOLE_CSS, contentType: 'text/css; charset=utf-8' }],
]);

/** The HTML shell as an asset. */
export const CONSOLE_PAGE: ConsoleAsset = { body: CONSOLE_HTML, contentType: 'text/html; charset=utf-8' };
