import { describe, expect, it } from 'vitest';
import { unlessAbandoned, WaitAbandonedError } from './consumer-abandon.js';

describe('consumer > abandoning a Redis wait', () => {
  it('settles like the command while the signal holds', async () => {
    const ac = new AbortController();
    await expect(unlessAbandoned(Promise.resolve('OK'), ac.signal, 'PING')).resolves.toBe('OK');
    await expect(unlessAbandoned(Promise.reject(new Error('down')), ac.signal, 'PING')).rejects.toThrow(
      'down',
    );
  });

  it('rejects at once when the signal aborts, even if the command never settles', async () => {
    const ac = new AbortController();
    const wait = unlessAbandoned(new Promise<never>(() => {}), ac.signal, 'XREADGROUP s:0');
    ac.abort();
    await expect(wait).rejects.toBeInstanceOf(WaitAbandonedError);
  });

  it('rejects without waiting when already aborted, and ignores the command failing later', async () => {
    const ac = new AbortController();
    ac.abort();
    let fail: (e: Error) => void = () => {};
    const late = new Promise<never>((_, reject) => {
      fail = reject;
    });
    await expect(unlessAbandoned(late, ac.signal, 'XACK')).rejects.toThrow('XACK: abandoned');
    fail(new Error('Connection is closed.')); // no unhandled rejection
    await new Promise((r) => setImmediate(r));
  });
});
