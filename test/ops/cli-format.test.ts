/**
 * The CLI's relative times: something that happened reads `just now` or `2s ago` (never `in 0s`,
 * nor `in 1s` when the coordinator's clock runs a little ahead); a deadline reads `in 12s`, `now`
 * or `3s ago`; longer spans in minutes, hours and days as kubectl shows ages.
 */
import { describe, expect, it } from 'vitest';
import { relativeTime } from '../../cli/cli-time.js';

const NOW = Date.parse('2026-12-02T12:00:00.000Z');
const at = (ms: number) => new Date(NOW + ms).toISOString();

describe('cli > relative times', () => {
  it.each([
    [-400, 'just now'],
    [0, 'just now'],
    [499, 'just now'],
    // The coordinator's clock a little ahead of this machine's: a heartbeat is never in the future.
    [1_400, 'just now'],
    [-1_600, '2s ago'],
    [-59_000, '59s ago'],
    [-150_000, '2m30s ago'],
    [-600_000, '10m ago'],
    [-3 * 3_600_000 - 300_000, '3h5m ago'],
    [-2 * 86_400_000 - 3_600_000, '2d1h ago'],
  ])('an event %i ms from now reads %s', (ms, text) => {
    expect(relativeTime(at(ms), NOW, 'past')).toBe(text);
  });

  it.each([
    [-400, 'now'],
    [0, 'now'],
    [499, 'now'],
    [-1_600, '2s ago'],
    [12_000, 'in 12s'],
    [90_000, 'in 1m30s'],
  ])('a deadline %i ms from now reads %s', (ms, text) => {
    expect(relativeTime(at(ms), NOW, 'deadline')).toBe(text);
  });

  it('shows a dash for no time and the text itself for an unreadable one', () => {
    expect(relativeTime(null, NOW, 'past')).toBe('-');
    expect(relativeTime('soon', NOW, 'deadline')).toBe('soon');
  });
});
