/**
 * The group page's charts: total lag and pending, produced / consumed records/s, and lag per
 * shard (at most 8 lines: the shards with the most lag), over the last 15 minutes this tab has seen (history.ts), drawn with uPlot (bundled: nothing is loaded
 * from another site, docs/console.md#how-it-is-built-and-tested). The history is kept per group
 * while the tab is open, so leaving a group and coming back keeps its lines.
 */
import uPlot from 'uplot';
import { fill, h } from './dom.js';
import { fmtNum } from './format.js';
import {
  appendSample,
  chartColumns,
  HISTORY_WINDOW_MS,
  type LagReading,
  type LagSample,
  SHARD_LINES_MAX,
  sampleOf,
  shardLagColumns,
} from './history.js';
import { alertBox } from './widgets.js';

/** Groups whose history the tab keeps (the least recently updated goes first). */
const GROUPS_KEPT = 20;
const CHART_HEIGHT = 190;

const histories = new Map<string, LagSample[]>();

/** Redraws the charts on the page (their colours come from the theme); one listener for all. */
let redrawShown: (() => void) | null = null;
let themeListener = false;

/** The history of group `g` of stream `p` with `reading` added (also kept for a later visit). */
function record(p: string, g: string, reading: LagReading): LagSample[] {
  const key = p + '\u0000' + g;
  const next = appendSample(histories.get(key) ?? [], sampleOf(reading));
  histories.delete(key);
  histories.set(key, next);
  for (const old of histories.keys()) {
    if (histories.size <= GROUPS_KEPT) break;
    histories.delete(old);
  }
  return next;
}

function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || 'gray';
}

/** Line colours of the per-shard chart, told apart in the light and the dark theme. */
const SHARD_COLOURS = [
  '#2f6fde',
  '#d9822b',
  '#2e9e6b',
  '#d64545',
  '#8b5cf6',
  '#0f9fb5',
  '#d6457f',
  '#7a9a1e',
];

/** The two lines of a totals chart in the page's colours: solid, then dashed. */
function pairSeries(unit: string, labels: [string, string]): uPlot.Series[] {
  return [
    { label: labels[0], stroke: cssVar('--accent'), width: 2, value: legendValue(unit) },
    { label: labels[1], stroke: cssVar('--warn'), width: 1.5, dash: [5, 4], value: legendValue(unit) },
  ];
}

/** One line per shard, labelled `:i`. */
function shardSeries(shards: readonly number[]): uPlot.Series[] {
  return shards.map((i, n) => ({
    label: ':' + i,
    stroke: SHARD_COLOURS[n % SHARD_COLOURS.length],
    width: 1.5,
    value: legendValue(''),
  }));
}

/** One chart's options: the given lines, time in UTC, y from 0. */
function chartOptions(width: number, lines: uPlot.Series[]): uPlot.Options {
  const axis: uPlot.Axis = {
    stroke: cssVar('--muted'),
    grid: { stroke: cssVar('--line'), width: 1 },
    ticks: { stroke: cssVar('--line'), width: 1 },
  };
  return {
    width,
    height: CHART_HEIGHT,
    scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] } },
    series: [{}, ...lines],
    axes: [
      // Whole seconds at least, as HH:MM:SS in UTC like every other time of the console.
      { ...axis, space: 70, incrs: TIME_STEPS, values: (_u, ticks) => ticks.map(utcClock) },
      { ...axis, size: 64, values: (_u, ticks) => ticks.map((t) => fmtNum(t)) },
    ],
    legend: { show: true },
    cursor: { drag: { x: false, y: false } },
  };
}

/** Tick steps of the time axis, in seconds. */
const TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900];

function utcClock(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(11, 19);
}

/** The legend's value: at the cursor, or the newest point while the cursor is elsewhere. */
function legendValue(unit: string): uPlot.Series.Value {
  return (u, v, series, idx) => {
    const column = u.data[series] ?? [];
    const shown = idx === null ? column[column.length - 1] : v;
    return shown === null || shown === undefined ? '—' : fmtNum(shown) + unit;
  };
}

/** The charts of one group: `update` adds a `/lag` reading, `fail` notes why none came. */
export interface GroupCharts {
  el: HTMLElement;
  update: (reading: LagReading) => void;
  fail: (why: string) => void;
}

/** The charts panel body for group `g` of stream `p`. */
export function groupCharts(p: string, g: string): GroupCharts {
  const note = h('div', { class: 'note', id: 'chart-note' }, 'Loading…');
  const lagBox = h('div', { class: 'chart', id: 'chart-lag' });
  const rateBox = h('div', { class: 'chart', id: 'chart-rate' });
  const shardBox = h('div', { class: 'chart', id: 'chart-shards' });
  const shardTitle = h('h3', { text: 'Lag per shard (records)' });
  // Hidden until the first read: an empty frame says nothing.
  const grid = h('div', { class: 'chart-grid', hidden: true }, [
    h('div', null, [h('h3', { text: 'Lag (records)' }), lagBox]),
    h('div', null, [h('h3', { text: 'Throughput (records/s)' }), rateBox]),
    h('div', null, [shardTitle, shardBox]),
  ]);
  const el = h('div', { class: 'panel-body', id: 'charts' }, [grid, note]);
  let plots: [uPlot, uPlot] | null = null;
  // Its lines are the shards it was made for: another set of shards makes a new chart.
  let shardPlot: { u: uPlot; key: string } | null = null;
  let history: LagSample[] = [];

  const drawShards = () => {
    const cols = shardLagColumns(history);
    const key = cols.shards.join(',');
    const count = history[history.length - 1]?.shards.size ?? 0;
    shardBox.setAttribute('data-shards', key);
    shardTitle.textContent =
      count > SHARD_LINES_MAX
        ? 'Lag per shard: the ' + SHARD_LINES_MAX + ' of ' + count + ' with the most lag'
        : 'Lag per shard (records)';
    const data = cols.data as uPlot.AlignedData;
    if (shardPlot && shardPlot.key === key) {
      shardPlot.u.setData(data);
      return;
    }
    shardPlot?.u.destroy();
    shardPlot = {
      u: new uPlot(chartOptions(shardBox.clientWidth, shardSeries(cols.shards)), data, shardBox),
      key,
    };
  };
  const draw = () => {
    const cols = chartColumns(history);
    el.setAttribute('data-samples', String(history.length));
    grid.hidden = history.length === 0;
    // Drawn once the panel is on the page: uPlot sizes from the box's width.
    if (!lagBox.isConnected) return;
    if (!plots) {
      plots = [
        new uPlot(chartOptions(lagBox.clientWidth, pairSeries('', ['Lag', 'Pending'])), cols.lag, lagBox),
        new uPlot(
          chartOptions(rateBox.clientWidth, pairSeries('/s', ['Produced', 'Consumed'])),
          cols.rate,
          rateBox,
        ),
      ];
    } else {
      plots[0].setData(cols.lag);
      plots[1].setData(cols.rate);
    }
    drawShards();
  };
  const redraw = () => {
    for (const u of plots ?? []) u.destroy();
    shardPlot?.u.destroy();
    plots = null;
    shardPlot = null;
    draw();
  };
  redrawShown = redraw;
  if (!themeListener) {
    themeListener = true;
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => redrawShown?.());
  }
  const resize = new ResizeObserver(() => {
    if (!plots) return;
    plots[0].setSize({ width: lagBox.clientWidth, height: CHART_HEIGHT });
    plots[1].setSize({ width: rateBox.clientWidth, height: CHART_HEIGHT });
    shardPlot?.u.setSize({ width: shardBox.clientWidth, height: CHART_HEIGHT });
  });
  resize.observe(lagBox);
  resize.observe(shardBox);

  const minutes = HISTORY_WINDOW_MS / 60_000;
  return {
    el,
    update: (reading) => {
      history = record(p, g, reading);
      const last = history[history.length - 1];
      const cols = chartColumns(history);
      // For scripts and tests: the newest point of each line ('' when it has none).
      el.setAttribute('data-last-lag', String(last?.totalLag ?? ''));
      el.setAttribute('data-last-produced', String(cols.rate[1][cols.rate[1].length - 1] ?? ''));
      el.setAttribute('data-last-consumed', String(cols.rate[2][cols.rate[2].length - 1] ?? ''));
      note.textContent =
        history.length < 2
          ? 'Collecting: records/s need two reads. This tab keeps the last ' + minutes + ' min.'
          : history.length +
            ' reads in this tab, the last ' +
            minutes +
            ' min kept; records/s from the group’s entries-read counters (times in UTC).';
      draw();
    },
    fail: (why) => {
      if (history.length) note.textContent = 'No new point: ' + why;
      else fill(note, alertBox('Lag and throughput are unavailable: ' + why, 'warn'));
    },
  };
}
