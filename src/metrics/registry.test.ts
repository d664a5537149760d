import { describe, expect, it } from 'vitest';
import { parseExposition, sampleValue } from '../../test/support/exposition.js';
import { MetricsRegistry } from './registry.js';

describe('metrics > text exposition', () => {
  it('renders HELP and TYPE before the samples of each metric, in registration order', async () => {
    const r = new MetricsRegistry();
    r.counter({ name: 'a_total', help: 'first' });
    r.gauge({ name: 'b', help: 'second' });
    const text = await r.render();
    expect(text).toBe(
      '# HELP a_total first\n# TYPE a_total counter\na_total 0\n# HELP b second\n# TYPE b gauge\nb 0\n',
    );
    expect(parseExposition(text).samples).toHaveLength(2);
  });

  it('escapes label values and help text as the format requires', async () => {
    const r = new MetricsRegistry();
    const c = r.counter({ name: 'odd_total', help: 'back\\slash\nnewline', labelNames: ['v'] });
    c.inc({ v: 'quote " back \\ new\nline' }, 2);
    const text = await r.render();
    expect(text).toContain('# HELP odd_total back\\\\slash\\nnewline\n');
    expect(text).toContain('odd_total{v="quote \\" back \\\\ new\\nline"} 2\n');
    expect(sampleValue(parseExposition(text), 'odd_total', { v: 'quote " back \\ new\nline' })).toBe(2);
  });

  it('lists labelled series sorted by label values, one per distinct tuple', async () => {
    const r = new MetricsRegistry();
    const c = r.counter({ name: 'req_total', help: 'h', labelNames: ['route', 'status'] });
    c.inc({ route: '/b', status: '200' });
    c.inc({ route: '/a', status: '404' });
    c.inc({ route: '/a', status: '200' }, 3);
    c.inc({ route: '/b', status: '200' });
    const lines = (await r.render()).split('\n').filter((l) => l.startsWith('req_total'));
    expect(lines).toEqual([
      'req_total{route="/a",status="200"} 3',
      'req_total{route="/a",status="404"} 1',
      'req_total{route="/b",status="200"} 2',
    ]);
  });

  it('renders histograms as cumulative buckets ending in +Inf, with sum and count', async () => {
    const r = new MetricsRegistry();
    const h = r.histogram({ name: 'lat_seconds', help: 'h', labelNames: ['route'], buckets: [0.1, 1] });
    for (const v of [0.05, 0.1, 0.5, 3]) h.observe({ route: '/x' }, v);
    const exp = parseExposition(await r.render());
    const bucket = (le: string) => sampleValue(exp, 'lat_seconds_bucket', { route: '/x', le });
    expect([bucket('0.1'), bucket('1'), bucket('+Inf')]).toEqual([2, 3, 4]);
    expect(sampleValue(exp, 'lat_seconds_count', { route: '/x' })).toBe(4);
    expect(sampleValue(exp, 'lat_seconds_sum', { route: '/x' })).toBeCloseTo(3.65);
    expect(exp.types.get('lat_seconds')).toBe('histogram');
  });

  it('renders special values the way Prometheus reads them', async () => {
    const r = new MetricsRegistry();
    const g = r.gauge({ name: 'g', help: 'h', labelNames: ['k'] });
    g.set({ k: 'inf' }, Number.POSITIVE_INFINITY);
    g.set({ k: 'nan' }, Number.NaN);
    g.set({ k: 'small' }, 1e-7);
    const text = await r.render();
    expect(text).toContain('g{k="inf"} +Inf\n');
    expect(text).toContain('g{k="nan"} NaN\n');
    expect(sampleValue(parseExposition(text), 'g', { k: 'small' })).toBe(1e-7);
  });

  it('runs collectors before rendering, and a failing collector costs only its own numbers', async () => {
    const r = new MetricsRegistry();
    const g = r.gauge({ name: 'live', help: 'h' });
    let n = 0;
    r.onCollect(() => g.set(undefined, ++n));
    r.onCollect(async () => {
      throw new Error('redis down');
    });
    expect(sampleValue(parseExposition(await r.render()), 'live')).toBe(1);
    expect(sampleValue(parseExposition(await r.render()), 'live')).toBe(2);
  });

  it('reads a series without creating it', async () => {
    const r = new MetricsRegistry();
    const c = r.counter({ name: 'seen_total', help: 'h', labelNames: ['k'] });
    expect(c.get({ k: 'never' })).toBe(0);
    expect(await r.render()).not.toContain('seen_total{');
  });

  it('refuses invalid names, reserved labels, decreasing counters and missing labels', () => {
    const r = new MetricsRegistry();
    expect(() => r.counter({ name: '1bad', help: 'h' })).toThrow(/metric name/);
    expect(() => r.histogram({ name: 'h', help: 'h', labelNames: ['le'], buckets: [1] })).toThrow(/label/);
    expect(() => r.histogram({ name: 'h2', help: 'h', buckets: [2, 1] })).toThrow(/ascending/);
    const c = r.counter({ name: 'c_total', help: 'h', labelNames: ['a'] });
    expect(() => c.inc({ a: 'x' }, -1)).toThrow(/decrease/);
    expect(() => c.inc({} as { a: string })).toThrow(/needs label a/);
    expect(() => r.counter({ name: 'c_total', help: 'again' })).toThrow(/twice/);
  });
});
