import { describe, expect, it } from 'vitest';
import { ownerState } from './grafana-views.js';

describe('grafana views > owner state', () => {
  it.each([
    [[], [], 'UNASSIGNED'],
    [[], ['a'], 'PENDING_ACK'],
    [['a'], ['a'], 'CURRENT'],
    [['a'], ['b'], 'TRANSITIONING'],
    [['a'], [], 'TRANSITIONING'],
    [['a', 'b'], ['a'], 'TRANSITIONING'],
  ])('current %j, target %j → %s', (current, target, state) => {
    expect(ownerState(current, target)).toBe(state);
  });
});
