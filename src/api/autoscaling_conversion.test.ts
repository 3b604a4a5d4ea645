import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HPA_METRICS_ANNOTATION, hpaV1ToV2, hpaV2ToV1 } from './autoscaling_conversion.js';
import type { HorizontalPodAutoscaler } from './types/index.js';

const v2: HorizontalPodAutoscaler = {
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'a', namespace: 'ns', annotations: { keep: 'me' } },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' },
    minReplicas: 2,
    maxReplicas: 5,
    metrics: [
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
      { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } },
    ],
    behavior: { scaleDown: { stabilizationWindowSeconds: 30 } },
  },
  status: {
    currentReplicas: 3,
    desiredReplicas: 4,
    currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 55 } } }],
    conditions: [{ type: 'AbleToScale', status: 'True' }],
  },
};

test('v2 to v1: the CPU utilization metric is targetCPUUtilizationPercentage, the rest rides in annotations', () => {
  const v1 = hpaV2ToV1(v2);
  assert.equal(v1.apiVersion, 'autoscaling/v1');
  assert.equal(v1.spec?.targetCPUUtilizationPercentage, 70);
  assert.equal(v1.status?.currentCPUUtilizationPercentage, 55);
  assert.equal(v1.status?.desiredReplicas, 4);
  assert.deepEqual(JSON.parse(v1.metadata!.annotations![HPA_METRICS_ANNOTATION]), [v2.spec!.metrics![1]]);
  assert.equal(v1.metadata?.annotations?.keep, 'me');
  assert.equal('metrics' in (v1.spec ?? {}), false);
});

test('v1 to v2 restores what the annotations carried, and removes them', () => {
  assert.deepEqual(hpaV1ToV2(hpaV2ToV1(v2)), v2);
  const bare = hpaV1ToV2({
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'b' },
    spec: { scaleTargetRef: { kind: 'Deployment', name: 'd' }, maxReplicas: 3, targetCPUUtilizationPercentage: 40 },
  });
  assert.deepEqual(bare.spec?.metrics, [
    { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 40 } } },
  ]);
  assert.equal(bare.metadata?.annotations, undefined);
  assert.equal(bare.apiVersion, 'autoscaling/v2');
});
