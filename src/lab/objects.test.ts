import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  applyDefaults,
  generateJobSelector,
  validateCreate,
  type CronJob,
  type Deployment,
  type StatefulSet,
} from '../api/index.js';
import type { KubeObject } from '../client/index.js';
import { configMap, cronJob, daemonSet, deployment, job, pod, secret, service, statefulSet } from './objects.js';

const refs = { configMap: true, secret: true };

test("every object of the mix passes the API server's defaulting and create validation", () => {
  const objs: [string, KubeObject][] = [
    ['deployments', deployment('ns', 'web-0', 5, refs)],
    ['statefulsets', statefulSet('ns', 'db-0', 2, true, refs)],
    ['statefulsets', statefulSet('ns', 'db-1', 2, false)],
    ['daemonsets', daemonSet('ns', 'agent-0', refs)],
    ['jobs', job('ns', 'batch-0', 5, refs)],
    ['cronjobs', cronJob('ns', 'tick-0', '*/1 * * * *')],
    ['configmaps', configMap('ns', 'web-0')],
    ['secrets', secret('ns', 'web-0')],
    ['services', service('ns', 'web-0')],
    ['pods', pod('ns', 'p', 'web-0', 0, undefined, refs)],
  ];
  for (const [resource, obj] of objs) {
    // The Job registry's strategy generates a Job's selector before validation, as upstream's does.
    if (resource === 'jobs') generateJobSelector(obj);
    assert.deepEqual(validateCreate(resource, applyDefaults(resource, obj)), [], `${resource} ${obj.metadata?.name}`);
  }
});

test("a workload's pods mount its ConfigMap and read its Secret, each named after it", () => {
  const spec = (deployment('ns', 'web-0', 1, refs) as Deployment).spec!.template!.spec!;
  assert.deepEqual(spec.volumes, [{ name: 'config', configMap: { name: 'web-0' } }]);
  assert.deepEqual(spec.containers[0]!.env, [
    { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'web-0', key: 'token' } } },
  ]);
  const bare = (deployment('ns', 'web-0', 1) as Deployment).spec!.template!.spec!;
  assert.equal(bare.volumes, undefined);
  assert.equal(bare.containers[0]!.env, undefined);
});

test('a StatefulSet with claims has one template, deleted with the set; a CronJob runs suspended Jobs', () => {
  const sts = statefulSet('ns', 'db-0', 2, true) as StatefulSet;
  assert.equal(sts.spec!.volumeClaimTemplates?.length, 1);
  assert.deepEqual(sts.spec!.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Delete', whenScaled: 'Delete' });
  assert.equal((statefulSet('ns', 'db-0', 2, false) as StatefulSet).spec!.volumeClaimTemplates, undefined);
  const cj = cronJob('ns', 'tick-0', '@hourly') as CronJob;
  assert.equal(cj.spec!.jobTemplate.spec!.suspend, true);
  assert.equal(cj.spec!.concurrencyPolicy, 'Forbid');
  assert.deepEqual(cj.spec!.jobTemplate.metadata!.labels, { app: 'tick-0' }, 'its Jobs do not carry the lab label');
});
