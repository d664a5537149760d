import { describe, expect, it } from 'vitest';
import type { MemberRecord } from '../core/model.js';
import { decodeMember, encodeMember } from './records.js';

const record: MemberRecord = {
  memberId: 'm0',
  memberName: 'm0',
  state: 'ACTIVE',
  memberEpoch: 3,
  previousEpoch: null,
  metadataVersion: 3,
  runtimeMaxConcurrency: 1,
  activeConsumerWorkers: 0,
  currentAssignment: [0, 1],
  grantedAssignment: [0, 1],
  revoking: [],
  lastHeartbeatAt: 1000,
  memberLeaseExpiresAt: 16000,
  rebalanceTimeoutMs: 60000,
  rebalanceDeadlineAt: null,
  shardProgress: [],
  fence: null,
};

/** A record as a coordinator without instance ids wrote it. */
const OLD =
  '7|{"n":"m0","s":"ACTIVE","e":3,"p":null,"v":3,"c":1,"w":0,"cu":"0-1","gr":"0-1","rv":"","lh":1000,"le":16000,"rt":60000,"f":null}';

describe('store > member records (layout 2)', () => {
  it('stores the instance id additively and reads it back', () => {
    const text = encodeMember(7, { ...record, memberInstanceId: 'abc123' });
    expect(text).toBe(OLD.replace('"f":null}', '"f":null,"i":"abc123"}'));
    expect(decodeMember('p', 'g', 'm0', text)).toEqual({
      rev: 7,
      record: { ...record, memberInstanceId: 'abc123' },
    });
  });

  it('reads a record written before instance ids as "instance unknown", and writes one without it unchanged', () => {
    const decoded = decodeMember('p', 'g', 'm0', OLD);
    expect(decoded).toEqual({ rev: 7, record });
    expect(decoded.record).not.toHaveProperty('memberInstanceId');
    expect(encodeMember(7, record)).toBe(OLD);
  });

  it('fails closed on an unreadable instance id', () => {
    expect(() => decodeMember('p', 'g', 'm0', OLD.replace('"f":null}', '"f":null,"i":5}'))).toThrow(
      /invalid at i/,
    );
  });
});
