/** The CLI's relative times: a moment within half a second is `now`, never `in 0s` or `0s ago`. */
import { describe, expect, it } from 'vitest';
import { relativeTime } from '../../cli/cli-format.js';

const NOW = Date.parse('2026-12-02T12:00:00.000Z');
const at = (ms: number) => new Date(NOW + ms).toISOString();

describe('cli > relative times', () => {
  it.each([
    [-400, 'now'],
    [0, 'now'],
    [499, 'now'],
    [-1_600, '2s ago'],
    [12_000, 'in 12s'],
  ])('%i ms from now reads %s', (ms, text) => {
    expect(relativeTime(at(ms), NOW)).toBe(text);
  });

  it('shows a dash for no time and the text itself for an unreadable one', () => {
    expect(relativeTime(null, NOW)).toBe('-');
    expect(relativeTime('soon', NOW)).toBe('soon');
  });
});
