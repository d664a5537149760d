/**
 * The console's static assets as strings (no files at run time), so the same bytes are served
 * by the Node adapter and bundled into the Worker. The script is generated (and committed).
 */
import { CONSOLE_BUNDLE_JS } from './generated/console-bundle.js';
import { CONSOLE_CSS_PATH, CONSOLE_HTML, CONSOLE_JS_PATH } from './page.js';
import { CONSOLE_CSS } from './style.js';

export { CONSOLE_BASE, CONSOLE_HTML } from './page.js';
export { CONSOLE_CSS } from './style.js';

/** The whole browser script, bundled from `src/console/app/` by `npm run build:console`. */
export const CONSOLE_JS = CONSOLE_BUNDLE_JS;

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
