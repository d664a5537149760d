import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIXTURE_VECTORS, SHARED_VECTORS } from './support/vectors.js';

describe('routing vectors', () => {
  it('the committed copy equals the shared vectors file whenever it is present', () => {
    const fixture = readFileSync(FIXTURE_VECTORS, 'utf8');
    expect(JSON.parse(fixture).vectors.length).toBeGreaterThan(0);
    if (existsSync(SHARED_VECTORS)) expect(fixture).toBe(readFileSync(SHARED_VECTORS, 'utf8'));
  });
});
