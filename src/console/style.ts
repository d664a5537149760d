/**
 * The console's stylesheet: neutral greys that follow the OS light/dark preference, monospace
 * for every id, and tables that scroll sideways instead of overlapping on narrow screens.
 */

/** CSS served at `/console/assets/console.css`. */
export const CONSOLE_CSS = `
:root {
  color-scheme: light dark;
  --bg: #f6f7f9; --panel: #ffffff; --fg: #1d2330; --muted: #5d6778; --line: #dde1e8;
  --accent: #2f6fd6; --accent-fg: #ffffff; --chip: #eef1f5;
  --ok: #1f8a4c; --ok-bg: #e3f4ea; --warn: #9a6200; --warn-bg: #fcf0d9;
  --bad: #b4262f; --bad-bg: #fbe4e6; --info: #2d5fb3; --info-bg: #e4ecfa; --off: #6b7280; --off-bg: #eceef1;
  --mono: ui-monospace, 'SFMono-Regular', 'DejaVu Sans Mono', 'Liberation Mono', Menlo, Consolas, monospace;
  --sans: system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', 'Liberation Sans', Roboto, sans-serif;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #15181d; --panel: #1d2128; --fg: #e3e6eb; --muted: #9aa3b2; --line: #323843;
    --accent: #5b93ec; --accent-fg: #0d1117; --chip: #272c35;
    --ok: #5cc98a; --ok-bg: #18362a; --warn: #e5b45a; --warn-bg: #3a2e16;
    --bad: #f07c84; --bad-bg: #3d1c21; --info: #86aef0; --info-bg: #1c2a44; --off: #a0a7b3; --off-bg: #2a2f38;
  }
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
html, body { margin: 0; padding: 0; }
body { background: var(--bg); color: var(--fg); font: 14px/1.45 var(--sans); }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
.mono, code, pre { font-family: var(--mono); font-size: 12.5px; }
.muted { color: var(--muted); }
.small { font-size: 12px; }

header.top {
  position: sticky; top: 0; z-index: 5; display: flex; flex-wrap: nowrap; align-items: center; gap: 8px 20px;
  padding: 10px 24px; background: var(--panel); border-bottom: 1px solid var(--line);
}
.brand { font-weight: 600; white-space: nowrap; color: var(--fg); }
.brand span { color: var(--muted); font-weight: 400; }
nav.crumbs { display: flex; flex-wrap: nowrap; align-items: center; gap: 6px; min-width: 0; flex: 1 1 auto; overflow: hidden; }
nav.crumbs > * { flex: none; white-space: nowrap; }
/* Only the long group name gives way when the header runs out of room. */
nav.crumbs > .mono { flex: 0 1 auto; min-width: 3em; overflow: hidden; text-overflow: ellipsis; }
nav.crumbs .sep { color: var(--muted); flex: none; }
.tools { display: flex; flex-wrap: nowrap; align-items: center; gap: 10px; margin-left: auto; flex: none; }
@media (max-width: 900px) {
  header.top, .tools { flex-wrap: wrap; }
}
.status { color: var(--muted); font-size: 12px; white-space: nowrap; }
.status.error { color: var(--bad); }
.who { font-size: 12px; color: var(--muted); white-space: nowrap; }

main { padding: 20px 24px 48px; max-width: 1480px; margin: 0 auto; }
h1 { font-size: 20px; margin: 0 0 4px; font-weight: 600; overflow-wrap: anywhere; }
h1 .mono { font-size: 0.9em; }
h3 { font-size: 12px; font-weight: 600; text-transform: uppercase; letter-spacing: .04em; margin: 18px 0 6px; }
h2 { font-size: 15px; margin: 0; font-weight: 600; }
.subtitle { margin: 0 0 18px; color: var(--muted); }

section.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; margin: 0 0 18px; }
section.panel > .panel-head {
  display: flex; flex-wrap: wrap; align-items: center; gap: 8px 14px; padding: 12px 16px; border-bottom: 1px solid var(--line);
}
section.panel > .panel-head .hint { color: var(--muted); font-size: 12px; }
section.panel .panel-body { padding: 14px 16px; }
section.panel .panel-body.flush { padding: 0; }
.empty { color: var(--muted); padding: 14px 16px; margin: 0; }
.note { color: var(--muted); font-size: 12px; margin: 8px 0 0; }
.alert { border-radius: 6px; padding: 10px 12px; margin: 0 0 14px; background: var(--bad-bg); color: var(--bad); }
.alert.warn { background: var(--warn-bg); color: var(--warn); }
.alert.ok { background: var(--ok-bg); color: var(--ok); }
/* The offer of a link's session: between the header and the page, aligned with main's content. */
.offer {
  display: flex; flex-wrap: wrap; align-items: center; gap: 8px 14px;
  margin: 16px max(24px, calc((100% - 1432px) / 2)) 0;
}
.offer p { margin: 0; flex: 1 1 320px; }
.offer-actions { display: flex; flex-wrap: wrap; gap: 8px; }

.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 7px 12px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; font-weight: 600; color: var(--muted); background: var(--panel); vertical-align: bottom; }
tr:last-child td { border-bottom: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { white-space: nowrap; }
td.nowrap { white-space: nowrap; }
th.shrink, td.shrink { width: 1%; white-space: nowrap; }
td > .mono, td > a > .mono { white-space: nowrap; }
tbody tr:hover td { background: color-mix(in srgb, var(--chip) 60%, transparent); }

.badge {
  display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 11.5px; font-weight: 600;
  letter-spacing: .02em; white-space: nowrap; background: var(--off-bg); color: var(--off);
}
.badge.ok { background: var(--ok-bg); color: var(--ok); }
.badge.warn { background: var(--warn-bg); color: var(--warn); }
.badge.bad { background: var(--bad-bg); color: var(--bad); }
.badge.info { background: var(--info-bg); color: var(--info); }
.chips { display: flex; flex-wrap: wrap; gap: 4px; }
.chip { font-family: var(--mono); font-size: 12px; background: var(--chip); border-radius: 4px; padding: 0 6px; white-space: nowrap; }

.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(160px, 1fr)); gap: 12px; margin: 0 0 18px; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; min-width: 0; }
.card .label { color: var(--muted); font-size: 12px; }
.card .value { font-size: 18px; font-weight: 600; margin-top: 2px; overflow-wrap: anywhere; }
.card .value .mono { font-size: 14px; }

.shard-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(230px, 1fr)); gap: 12px; padding: 14px 16px; }
.shard {
  border: 1px solid var(--line); border-left: 4px solid var(--ok); border-radius: 6px; padding: 9px 12px;
  display: flex; flex-direction: column; gap: 4px; min-width: 0; background: var(--panel);
}
.shard.pending, .shard.revoking { border-left-color: var(--warn); }
.shard.unassigned { border-left-color: var(--off); }
.shard.removed {
  border-left-color: var(--bad);
  background: repeating-linear-gradient(135deg, var(--panel) 0 10px, color-mix(in srgb, var(--bad-bg) 55%, var(--panel)) 10px 20px);
}
.shard .shard-head { display: flex; align-items: center; justify-content: space-between; gap: 6px; }
.shard .shard-id { font-family: var(--mono); font-weight: 700; font-size: 14px; }
.shard .flags { display: flex; flex-wrap: wrap; gap: 4px; justify-content: flex-end; }
.shard dl { display: grid; grid-template-columns: auto 1fr; gap: 2px 10px; margin: 0; font-size: 12.5px; }
.shard dt { color: var(--muted); }
.shard dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
.legend { display: flex; flex-wrap: wrap; gap: 14px; font-size: 12px; color: var(--muted); }
.legend i { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 5px; vertical-align: -1px; }
.legend i.ok { background: var(--ok); } .legend i.warn { background: var(--warn); }
.legend i.off { background: var(--off); } .legend i.bad { background: var(--bad); }
.pad-top { padding: 14px 16px 0; } .pad-bottom { padding: 0 16px 12px; }

.lease { display: flex; align-items: center; gap: 8px; white-space: nowrap; }
.bar { width: 70px; height: 6px; border-radius: 3px; background: var(--off-bg); overflow: hidden; flex: none; }
.bar > i { display: block; height: 100%; background: var(--ok); }
.bar.low > i { background: var(--warn); }
.bar.gone > i { background: var(--bad); }

button, select, input {
  font: inherit; color: var(--fg); background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 5px 10px;
}
button { cursor: pointer; white-space: nowrap; }
button:hover:not(:disabled) { border-color: var(--accent); }
button:disabled { opacity: .5; cursor: not-allowed; }
button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-fg); font-weight: 600; }
button.danger { border-color: var(--bad); color: var(--bad); }
button.danger.solid { background: var(--bad); color: #fff; font-weight: 600; }
input:focus, select:focus, button:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
.controls { display: flex; flex-wrap: wrap; align-items: end; gap: 10px 14px; }
.controls label { display: flex; flex-direction: column; gap: 3px; font-size: 12px; color: var(--muted); }
.controls .spacer { flex: 1 1 auto; }

.login { max-width: 380px; margin: 8vh auto 0; }
.login form { display: flex; flex-direction: column; gap: 12px; }
.login label { display: flex; flex-direction: column; gap: 4px; font-size: 13px; color: var(--muted); }
.login input { padding: 8px 10px; }
.login button { padding: 8px 10px; }

.confirm { border: 1px solid var(--bad); background: var(--bad-bg); border-radius: 6px; padding: 12px; margin-top: 12px; }
.confirm p { margin: 0 0 8px; }
.confirm .controls input { min-width: 280px; }
.kv { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; }
.kv dt { color: var(--muted); }
.kv dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
.payload { font-family: var(--mono); font-size: 12.5px; white-space: pre-wrap; overflow-wrap: anywhere; max-width: 720px; margin: 0; }
.fields { display: flex; flex-direction: column; gap: 2px; }
.fields span { font-family: var(--mono); font-size: 12px; overflow-wrap: anywhere; }
.fields b { color: var(--muted); font-weight: 500; }
/* Charts (uPlot draws on canvases over these boxes; its layout rules, in the page's colours). */
.chart-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(380px, 1fr)); gap: 8px 24px; }
.chart-grid h3 { margin-top: 0; }
.chart { min-width: 0; min-height: 190px; }
.uplot, .uplot * { box-sizing: border-box; }
.uplot { font: 12px var(--sans); color: var(--muted); width: 100%; }
.u-wrap { position: relative; user-select: none; }
.u-over, .u-under, .u-axis { position: absolute; }
.u-under { overflow: hidden; }
.uplot canvas { display: block; position: relative; width: 100%; height: 100%; }
.u-legend { margin: 4px 0 0; font-size: 12px; text-align: left; }
.u-legend.u-inline tr { display: inline-block; margin-right: 14px; }
.u-legend.u-inline th, .u-legend.u-inline td { display: inline-block; padding: 0 2px; border: 0; background: none; font-weight: 500; }
.u-legend th > * { vertical-align: middle; display: inline-block; }
.u-legend .u-marker { width: 12px; height: 3px; margin-right: 5px; background-clip: padding-box !important; }
.u-legend.u-live th::after { content: ':'; vertical-align: middle; }
.u-legend:not(.u-live) .u-value { display: none; }
.u-legend .u-series:first-child { display: none; }
.u-legend .u-series th { cursor: pointer; }
.u-legend .u-off > * { opacity: .35; }
.u-select { position: absolute; pointer-events: none; background: color-mix(in srgb, var(--accent) 12%, transparent); }
.u-cursor-x, .u-cursor-y { position: absolute; left: 0; top: 0; pointer-events: none; will-change: transform; }
.u-hz .u-cursor-x { height: 100%; border-right: 1px dashed var(--muted); }
.u-hz .u-cursor-y { width: 100%; border-bottom: 1px dashed var(--muted); }
.u-cursor-pt { position: absolute; top: 0; left: 0; border-radius: 50%; border: 0 solid; pointer-events: none; background-clip: padding-box !important; }
.u-axis.u-off, .u-select.u-off, .u-cursor-x.u-off, .u-cursor-y.u-off, .u-cursor-pt.u-off { display: none; }
`;
