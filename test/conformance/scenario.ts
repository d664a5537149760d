/**
 * A conformance scenario: written once, run against every target (`suite.ts`). Scenarios that
 * need other settings (credentials, say) name them in `config` and get a target of their own.
 */
import { expect } from 'vitest';
import { type HeartbeatArgs, heartbeatBody } from '../support/stack.js';
import type { ConformanceTarget, TargetResponse } from './target.js';

/** One behaviour every runtime must show. */
export interface Scenario {
  /** Reads like the spec: what the deployment does. */
  name: string;
  /** Env variables / bindings on top of the suite defaults. */
  config?: Record<string, string>;
  run(t: ConformanceTarget): Promise<void>;
}

/** Settings every target of the suite gets: open mode asked for explicitly (the Worker needs it). */
export const OPEN_MODE = { COORDINATOR_OPEN_MODE: 'true' } as const;

/** `/coord/v1/streams/{p}/groups/{g}` with both segments percent-encoded. */
export function groupPath(p: string, g: string = p): string {
  return `/coord/v1/streams/${encodeURIComponent(p)}/groups/${encodeURIComponent(g)}`;
}

/** `/coord/v1/monitoring/streams/{p}/groups/{g}`. */
export function monitoringPath(p: string, g: string = p): string {
  return `/coord/v1/monitoring/streams/${encodeURIComponent(p)}/groups/${encodeURIComponent(g)}`;
}

/** Creates stream `p` (first group `p`) with `shards` shards and expects 201. */
export async function createStream(t: ConformanceTarget, p: string, shards: number): Promise<void> {
  const res = await t.call('POST', `/coord/v1/streams/${encodeURIComponent(p)}`, {
    initialShardCount: shards,
    requestedBy: 'conformance',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

/** Sends one heartbeat of `member` to group `g` (default `p`). */
export function heartbeat(
  t: ConformanceTarget,
  p: string,
  member: string,
  a: HeartbeatArgs,
  g: string = p,
  headers?: Record<string, string>,
): Promise<TargetResponse> {
  return t.call(
    'POST',
    `${groupPath(p, g)}/members/${encodeURIComponent(member)}/heartbeat`,
    heartbeatBody(member, p, a),
    headers,
  );
}

/** The members view as a map memberId -> record. */
// biome-ignore lint/suspicious/noExplicitAny: JSON views.
export async function members(t: ConformanceTarget, p: string, g: string = p): Promise<Record<string, any>> {
  const res = await t.call('GET', `${monitoringPath(p, g)}/members`);
  expect(res.status).toBe(200);
  return Object.fromEntries(res.body.members.map((m: { memberId: string }) => [m.memberId, m]));
}

/** Resolves after `ms` of real time (leases run on the deployment's real clock). */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
