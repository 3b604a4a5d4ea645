import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shouldPodBeInEndpoints } from './pod.js';
import type { Pod } from '../../api/index.js';

const pod = (phase: string, extra: { restartPolicy?: string; deleted?: boolean; ip?: string } = {}): Pod =>
  ({
    metadata: { name: 'p', namespace: 'ns', ...(extra.deleted ? { deletionTimestamp: '2026-12-03T00:00:00Z' } : {}) },
    spec: { restartPolicy: extra.restartPolicy ?? 'Always', containers: [] },
    status: { phase, ...(extra.ip === '' ? {} : { podIP: extra.ip ?? '10.64.0.5' }) },
  }) as unknown as Pod;

test('a terminal pod is in no endpoints, whatever its restart policy (upstream since 1.27)', () => {
  for (const restartPolicy of ['Always', 'OnFailure', 'Never']) {
    for (const phase of ['Succeeded', 'Failed']) {
      assert.equal(shouldPodBeInEndpoints(pod(phase, { restartPolicy }), true), false, `${restartPolicy}/${phase}`);
    }
    assert.equal(shouldPodBeInEndpoints(pod('Running', { restartPolicy }), true), true, restartPolicy);
  }
});

test('a terminating pod stays only where terminating endpoints are wanted; a pod without an IP is left out', () => {
  assert.equal(shouldPodBeInEndpoints(pod('Running', { deleted: true }), true), true);
  assert.equal(shouldPodBeInEndpoints(pod('Running', { deleted: true }), false), false);
  assert.equal(shouldPodBeInEndpoints(pod('Pending', { ip: '' }), true), false);
});
