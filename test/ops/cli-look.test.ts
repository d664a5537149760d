/**
 * When the CLI colours its tables (docs/cli.md#colour): on a terminal unless NO_COLOR is set,
 * never when piped unless FORCE_COLOR asks, and FORCE_COLOR=0 turns it off everywhere; and the
 * "did you mean" distance behind unknown commands and options.
 */
import { describe, expect, it } from 'vitest';
import { colorEnabled } from '../../cli/cli-look.js';
import { closest, editDistance } from '../../cli/cli-suggest.js';

describe('cli > colour', () => {
  it.each([
    [{}, true, true],
    [{}, false, false],
    [{ NO_COLOR: '1' }, true, false],
    // no-color.org: an empty NO_COLOR does not count.
    [{ NO_COLOR: '' }, true, true],
    [{ FORCE_COLOR: '1' }, false, true],
    [{ FORCE_COLOR: '' }, false, true],
    [{ FORCE_COLOR: '0' }, true, false],
    [{ FORCE_COLOR: 'false' }, true, false],
    // As Node's own streams do, FORCE_COLOR wins over NO_COLOR.
    [{ FORCE_COLOR: '1', NO_COLOR: '1' }, false, true],
    [{ TERM: 'dumb' }, true, false],
  ])('env %j, terminal %s: colour %s', (env, isTTY, expected) => {
    expect(colorEnabled(env, isTTY)).toBe(expected);
  });
});

describe('cli > did you mean', () => {
  it('counts a swap of two neighbours as one edit (Damerau)', () => {
    expect(editDistance('scael', 'scale')).toBe(1);
    expect(editDistance('forse', 'force')).toBe(1);
    expect(editDistance('membrs', 'members')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('suggests the closest name within two edits, and nothing further away', () => {
    const names = ['streams', 'groups', 'scale', 'members', 'migrations'];
    expect(closest('grups', names)).toBe('groups');
    expect(closest('Scale', names)).toBe('scale');
    expect(closest('frobnicate', names)).toBeUndefined();
  });
});
