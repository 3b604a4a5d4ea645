import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { podStartup, podStartupByPhase, sloEntries } from './measure.js';
import type { PodTimes } from './pod_tracker.js';

describe('pod startup by phase', () => {
  const t0 = 1_000_000;
  const pod = (createdS: number, latencyMs: number, owner?: string): PodTimes => {
    const seenAt = t0 + createdS * 1000;
    return {
      seenAt,
      scheduledAt: seenAt + latencyMs - 1000,
      runningAt: seenAt + latencyMs,
      ...(owner === undefined ? {} : { owner }),
    };
  };

  it("breaks each phase's pods down by their controller's kind, most pods first", () => {
    const pods = [
      // A DaemonSet's pods all come at once and wait; the ReplicaSets' come at the pod rate.
      ...Array.from({ length: 30 }, (_, i) => pod(1, 2_000 + i * 300, 'DaemonSet')),
      ...Array.from({ length: 100 }, (_, i) => pod(2 + i / 10, 1_200 + (i % 10), 'ReplicaSet')),
      pod(3, 1_100),
      // Created in the next phase.
      pod(60, 1_500, 'Job'),
      // Never ran: not counted.
      { seenAt: t0 + 5_000, owner: 'StatefulSet' },
    ];
    const phases = [
      { name: 'create', start: 0, end: 50 },
      { name: 'scale', start: 50, end: 100 },
    ];
    const [create, scale] = podStartupByPhase(pods, phases, t0, 1000);
    assert.equal(create!.pods, 131);
    assert.deepEqual(
      create!.byOwner.map((o) => [o.owner, o.pods]),
      [
        ['ReplicaSet', 100],
        ['DaemonSet', 30],
        ['none', 1],
      ],
    );
    const [rs, ds] = create!.byOwner;
    assert.equal(rs!.total.p99, 1_209);
    assert.equal(ds!.total.p99, 2_000 + 29 * 300);
    assert.equal(ds!.createToScheduled.p99, 1_000 + 29 * 300);
    // The phase's own p99 sits in the DaemonSet's tail.
    assert.ok(create!.total.p99 > 2_000, String(create!.total.p99));
    assert.deepEqual(
      scale!.byOwner.map((o) => [o.owner, o.pods]),
      [['Job', 1]],
    );
  });
});

describe('pod startup SLO', () => {
  it("is judged on stateless pods, as upstream's SLI: pods with persistent volumes are left out and named", () => {
    const fast = (i: number): PodTimes => ({ seenAt: i, scheduledAt: i + 100, runningAt: i + 1_500 });
    const slow = (i: number): PodTimes => ({
      seenAt: i,
      scheduledAt: i + 17_000,
      runningAt: i + 18_000,
      stateful: true,
    });
    const pods = [...Array.from({ length: 98 }, (_, i) => fast(i)), slow(98), slow(99)];
    const startup = podStartup(pods, 1000);
    assert.equal(startup.pods, 100);
    assert.equal(startup.statefulPods, 2);
    assert.equal(startup.total.p99, 18_000);
    assert.equal(startup.stateless.p99, 1_500);
    const slo = sloEntries([], startup, undefined, 100, 105).find((e) => e.name.startsWith('Pod startup'))!;
    assert.equal(slo.measured, 1.5);
    assert.equal(slo.pass, true);
    assert.match(slo.detail, /^98 pods; .*; 2 pods with persistent volumes left out \(all 100: p99 18\.000 s\)$/);
  });

  it('fails on the stateless pods alone when they are slow', () => {
    const pods: PodTimes[] = Array.from({ length: 10 }, (_, i) => ({
      seenAt: i,
      scheduledAt: i,
      runningAt: i + 6_000,
    }));
    const slo = sloEntries([], podStartup(pods, 1000), undefined, 100, 105).find((e) =>
      e.name.startsWith('Pod startup'),
    )!;
    assert.equal(slo.measured, 6);
    assert.equal(slo.pass, false);
    assert.doesNotMatch(slo.detail, /left out/);
  });
});
