/**
 * The console's HTML shell. Every path under `/console` answers this page; the script then
 * renders the view the path names (deep links survive a reload).
 */

/** Where the console is mounted. */
export const CONSOLE_BASE = '/console';

/** Path of the console's script. */
export const CONSOLE_JS_PATH = `${CONSOLE_BASE}/assets/console.js`;

/** Path of the console's stylesheet. */
export const CONSOLE_CSS_PATH = `${CONSOLE_BASE}/assets/console.css`;

/** HTML served for `/console` and every non-asset path below it. */
export const CONSOLE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Coordinator console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${CONSOLE_CSS_PATH}">
<script src="${CONSOLE_JS_PATH}" defer></script>
</head>
<body data-view="loading">
<header class="top">
  <a class="brand" href="${CONSOLE_BASE}" data-nav>redis-stream-coordinator <span>console</span></a>
  <nav class="crumbs" id="crumbs" aria-label="Breadcrumb"></nav>
  <div class="tools" id="tools"></div>
</header>
<main id="view"><p class="muted">Loading…</p></main>
<noscript><main><p>This console needs JavaScript.</p></main></noscript>
</body>
</html>
`;
