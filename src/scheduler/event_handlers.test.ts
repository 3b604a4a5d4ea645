import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RESOURCES, silentLogger, type EventRecorder, type KubeObject, type RESTClient } from '../client/index.js';
import { FakeClock } from '../clock/index.js';
import { resolveProfiles } from './config.js';
import { SCHEDULER_POD_SCOPE } from './framework/interface.js';
import { PODGROUPS, POD_GROUP_LABEL } from './plugins/coscheduling/index.js';
import { inTreeRegistry } from './plugins/registry.js';
import { Scheduler } from './scheduler.js';

// No server: the informers are never started; objects are fed to them as their reflectors would.
function scheduler(): Scheduler {
  const registry = inTreeRegistry();
  const client = { resource: () => ({}) } as unknown as RESTClient;
  const recorder = { event: () => undefined } as unknown as EventRecorder;
  return new Scheduler({
    client,
    recorder,
    clock: new FakeClock(),
    logger: silentLogger,
    profiles: resolveProfiles({}, registry),
    registry,
  });
}

const gangPod: KubeObject = {
  metadata: { name: 'a', namespace: 'default', uid: 'a', labels: { [POD_GROUP_LABEL]: 'g' } },
  spec: { containers: [] },
};
const podGroup: KubeObject = { metadata: { name: 'g', namespace: 'default', uid: 'g' }, spec: { minMember: 1 } };

test('a plugin\u2019s informer from the factory is the one the scheduler watches, and its events requeue pods', () => {
  const s = scheduler();
  const podGroups = s.informers.informerFor(PODGROUPS);
  assert.equal(
    s.informers.informerFor(RESOURCES.pods, SCHEDULER_POD_SCOPE),
    s.podInformer,
    'Coscheduling shares the scheduler\u2019s pod informer',
  );
  s.podInformer.add(gangPod);
  assert.deepEqual(
    s.queue.pending(),
    { active: 0, backoff: 0, unschedulable: 0, gated: 1 },
    'gated: its PodGroup does not exist yet',
  );
  podGroups.add(podGroup);
  assert.deepEqual(
    s.queue.pending(),
    { active: 1, backoff: 0, unschedulable: 0, gated: 0 },
    'the PodGroup ADDED event let it through',
  );
});

test('a status write to a bound pod leaves the cache holding the new object, its accounting unchanged', () => {
  const s = scheduler();
  s.nodeInformer.add({ metadata: { name: 'n1', uid: 'n1' }, status: { allocatable: { cpu: '4', pods: '110' } } });
  const bound: KubeObject = {
    metadata: { name: 'p', namespace: 'default', uid: 'p', resourceVersion: '1', labels: { app: 'a' } },
    spec: {
      nodeName: 'n1',
      containers: [{ name: 'c', image: 'i', resources: { requests: { cpu: '1' } } }],
      tolerations: [{ key: 'k', operator: 'Exists' }],
    },
    status: { phase: 'Pending' },
  };
  s.podInformer.add(bound);
  const before = s.cache.get('n1')!.pods.get('default/p')!;
  assert.equal(before.pod, bound);
  const requested = before.requests.milliCPU;
  const running: KubeObject = {
    ...bound,
    metadata: { ...bound.metadata, resourceVersion: '2', labels: { app: 'a' } },
    spec: structuredClone(bound.spec),
    status: { phase: 'Running', podIP: '10.0.0.1' },
  };
  s.podInformer.update(running);
  const after = s.cache.get('n1')!.pods.get('default/p')!;
  assert.equal(after.pod, running, 'the cache points at the informer\u2019s current object');
  assert.equal(after.labels, running.metadata!.labels, 'labels of the current object, not the old one');
  assert.equal(after.tolerations, (running.spec as { tolerations: unknown[] }).tolerations);
  assert.equal(after.requests.milliCPU, requested);
  assert.equal(requested, 1000);
  assert.deepEqual(s.cache.podCounts(), { pods: 1, assumed: 0 });
  assert.deepEqual(s.queue.pending(), { active: 0, backoff: 0, unschedulable: 0, gated: 0 });
});
