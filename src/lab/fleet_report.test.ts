import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FleetStats } from '../kubelet/index.js';
import { fleetLabel, fleetSummaryLines, fleetTotal, type FleetReport } from './fleet_report.js';

const pct = (p99: number): FleetStats['podStart']['lateness'] => ({ count: 1, p50: p99 / 2, p90: p99, p99, max: p99 });

function stats(count: number, podsStarted: number, p99: number): FleetStats {
  return {
    count,
    registered: count,
    killed: 0,
    podWatch: 'per-node',
    heartbeat: 'lease',
    requests: 10 * count,
    retries: 0,
    tooManyRequests: 0,
    leaseRenewals: 3 * count,
    leaseErrors: 0,
    statusSyncs: 0,
    statusPatches: 0,
    statusErrors: 0,
    podsKnown: podsStarted,
    podsStarted,
    podsCompleted: 0,
    podsDeleted: 0,
    podErrors: 0,
    join: 'shared',
    joined: 0,
    joinFailed: 0,
    certificates: 0,
    referenceWatches: 0,
    referenceWatchesSynced: 0,
    serviceAccountTokens: 0,
    serviceAccountTokenRefreshes: 0,
    nodeWatchesSynced: 0,
    podStart: { lateness: pct(p99), statusPatch: pct(p99 * 2), eventLoopDelay: pct(p99 * 3) },
  };
}

const fleets: FleetReport[] = [
  { namePrefix: 'hollow-node-', firstIndex: 0, count: 3, pid: 1, stats: stats(3, 30, 10) },
  { namePrefix: 'hollow-node-', firstIndex: 3, count: 2, pid: 2, stats: stats(2, 20, 40) },
  { namePrefix: 'hollow-node-', firstIndex: 5, count: 2, pid: 3, stats: null, error: 'connection refused' },
];

test('the fleet total sums the counters of the processes that answered and keeps each latency figure at its worst', () => {
  const t = fleetTotal(fleets);
  assert.equal(t.processes, 3);
  assert.equal(t.answered, 2);
  assert.equal(t.counters.count, 5);
  assert.equal(t.counters.podsStarted, 50);
  assert.equal(t.counters.leaseRenewals, 15);
  assert.equal(t.counters.requests, 50);
  assert.deepEqual(t.worst, { latenessP99: 40, statusPatchP99: 80, eventLoopDelayP99: 120 });
});

test('each fleet process is named by its slice of the node range, and several get a total line', () => {
  assert.equal(fleetLabel(fleets[1]!), 'hollow-node-[3..4]');
  assert.equal(fleetLabel({ namePrefix: 'x-', pid: 1, stats: null }), 'x-');
  const lines = fleetSummaryLines(fleets);
  assert.equal(lines.length, 4);
  assert.match(lines[2]!, /hollow-node-\[5\.\.6\]: no figures \(connection refused\)/);
  assert.match(lines[3]!, /fleet total \(2 of 3 processes\): 5 of 5 nodes registered, 50 pods started/);
  assert.equal(fleetSummaryLines(fleets.slice(0, 1)).length, 1, 'one process needs no total');
});
