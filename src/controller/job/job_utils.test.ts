import { test } from 'node:test';
import assert from 'node:assert/strict';
import { remainingBackoffMs } from './backoff.js';
import { firstPendingIndexes, formatIndexes, parseIndexes } from './indexed.js';
import { podChanges, wantActive } from './manage.js';
import type { Job, Pod } from '../../api/index.js';

const finished = (phase: 'Succeeded' | 'Failed', at: string): Pod => ({
  metadata: { name: `${phase}-${at}` },
  status: {
    phase,
    containerStatuses: [
      {
        name: 'c',
        ready: false,
        restartCount: 0,
        image: 'i',
        imageID: '',
        state: { terminated: { exitCode: phase === 'Succeeded' ? 0 : 1, finishedAt: at } },
      },
    ],
  },
});

test('completed indexes round-trip through the interval string', () => {
  assert.equal(formatIndexes([5, 0, 1, 2, 7, 8]), '0-2,5,7-8');
  assert.deepEqual([...parseIndexes('0-2,5,7-8', 8)].sort(), [0, 1, 2, 5, 7]);
  assert.deepEqual(firstPendingIndexes(2, 6, new Set([0, 1]), new Set([2])), [3, 4]);
});

test('pod failure back-off doubles per failure since the last success, from the last failure', () => {
  const t0 = Date.parse('2026-12-02T00:00:00Z');
  const pods = [finished('Failed', '2026-12-02T00:00:00Z'), finished('Failed', '2026-12-02T00:00:05Z')];
  assert.equal(remainingBackoffMs(pods, t0 + 5_000, 10_000, 600_000), 20_000);
  assert.equal(remainingBackoffMs(pods, t0 + 30_000, 10_000, 600_000), 0);
  const afterSuccess = [
    ...pods,
    finished('Succeeded', '2026-12-02T00:00:06Z'),
    finished('Failed', '2026-12-02T00:00:07Z'),
  ];
  assert.equal(remainingBackoffMs(afterSuccess, t0 + 7_000, 10_000, 600_000), 10_000);
  assert.equal(remainingBackoffMs([finished('Succeeded', '2026-12-02T00:00:00Z')], t0, 10_000, 600_000), 0);
});

test('active pods are capped by parallelism and the completions still missing', () => {
  const job: Job = { spec: { parallelism: 5, completions: 20 } };
  assert.equal(wantActive(job, 0), 5);
  assert.equal(wantActive(job, 17), 3);
  assert.equal(wantActive({ spec: { parallelism: 3 } }, 1), 0);
  const running = (i: number): Pod => ({ metadata: { name: `p${i}` }, status: { phase: 'Running' } });
  assert.equal(podChanges(job, [running(1)], 0, 5, undefined, 500).creates.length, 4);
  assert.equal(podChanges(job, [1, 2, 3].map(running), 0, 1, undefined, 500).deletes.length, 2);
});

test('an Indexed Job drops duplicate and finished indexes before creating pods for the missing ones', () => {
  const job: Job = { spec: { parallelism: 3, completions: 4, completionMode: 'Indexed' } };
  const at = (i: number, name = `p${i}`): Pod => ({
    metadata: { name, annotations: { 'batch.kubernetes.io/job-completion-index': String(i) } },
    status: { phase: 'Running' },
  });
  const dup = podChanges(job, [at(0), at(0, 'p0b'), at(1)], 0, 3, new Set(), 500);
  assert.equal(dup.deletes.length, 1);
  assert.deepEqual(dup.creates, []);
  const done = podChanges(job, [at(0)], 0, 3, new Set([0]), 500);
  assert.equal(done.deletes.length, 1, 'a pod of a completed index goes');
  assert.deepEqual(podChanges(job, [at(1)], 0, 3, new Set([0]), 500).creates, [2, 3]);
});
