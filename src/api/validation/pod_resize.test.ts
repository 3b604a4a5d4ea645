import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../types.js';
import { errorString } from './field.js';
import { validatePodResize } from './pod_resize.js';

const pod = (initCpu: string, restartPolicy?: string, appCpu = '100m'): KubeObject =>
  ({
    metadata: { name: 'p', namespace: 'ns', resourceVersion: '1' },
    spec: {
      initContainers: [{ name: 'init', image: 'i', resources: { requests: { cpu: initCpu } }, restartPolicy }],
      containers: [{ name: 'app', image: 'a', resources: { requests: { cpu: appCpu } } }],
    },
    status: { qosClass: 'Burstable' },
  }) as KubeObject;

test('a resize may change a sidecar’s resources but not a plain init container’s', () => {
  assert.deepEqual(validatePodResize(pod('200m', 'Always'), pod('100m', 'Always')), []);
  assert.deepEqual(validatePodResize(pod('200m'), pod('100m')).map(errorString), [
    'spec.initContainers[0].resources: Forbidden: resources for non-sidecar init containers are immutable',
  ]);
});

test('a resize keeps the QoS class the pod was created with', () => {
  assert.deepEqual(validatePodResize(pod('100m', undefined, '300m'), pod('100m')), []);
  const noRequests = pod('100m', undefined, '100m');
  (noRequests.spec as { containers: { resources: unknown }[] }).containers[0]!.resources = {};
  (noRequests.spec as { initContainers: { resources: unknown }[] }).initContainers[0]!.resources = {};
  assert.deepEqual(validatePodResize(noRequests, pod('100m')).map(errorString).slice(-1), [
    'spec: Forbidden: Pod QOS Class may not change as a result of resizing',
  ]);
});
