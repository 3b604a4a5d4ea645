import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromLabelSelector } from '../../api/index.js';
import { newPodInfo } from '../framework/pod_info.js';
import { SchedulerCache } from './cache.js';

const node = (name: string, zone: string) => ({
  metadata: { name, labels: { zone } },
  status: { allocatable: { cpu: '4', memory: '8Gi', pods: '10' } },
});
const pod = (name: string, labels: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
  newPodInfo({
    metadata: { name, namespace: 'ns', uid: name, labels },
    spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1', memory: '1Gi' } } }], ...extra },
  });

test('assumed pods count at once, a forgotten one releases its room, and confirmation keeps the count', () => {
  const c = new SchedulerCache();
  c.setNode(node('n1', 'a'));
  c.assumePod(pod('p'), 'n1');
  assert.equal(c.get('n1')!.requested.milliCPU, 1000);
  assert.equal(c.isAssumed('ns/p'), true);
  c.forgetPod('ns/p');
  assert.equal(c.get('n1')!.requested.milliCPU, 0);
  c.assumePod(pod('p'), 'n1');
  c.addPod(pod('p'), 'n1');
  assert.equal(c.isAssumed('ns/p'), false);
  assert.equal(c.get('n1')!.requested.milliCPU, 1000);
  assert.equal(c.get('n1')!.pods.size, 1);
  c.removePod('ns/p');
  assert.equal(c.get('n1')!.requested.milliCPU, 0);
});

test('match counters stay exact per domain as pods come and go and node labels change', () => {
  const c = new SchedulerCache();
  c.setNode(node('n1', 'a'));
  c.setNode(node('n2', 'b'));
  c.addPod(pod('w1', { app: 'web' }), 'n1');
  const sel = fromLabelSelector({ matchLabels: { app: 'web' } });
  const counter = c.matchCounter(new Set(['ns']), sel, 'zone', 'web@zone');
  assert.deepEqual([...counter.byDomain], [['a', 1]]);
  c.assumePod(pod('w2', { app: 'web' }), 'n2');
  c.addPod(pod('db', { app: 'db' }), 'n2');
  assert.deepEqual(Object.fromEntries(counter.byDomain), { a: 1, b: 1 });
  c.forgetPod('ns/w2');
  assert.deepEqual(Object.fromEntries(counter.byDomain), { a: 1 });
  // Relabelling a node rebuilds the aggregates under the new domain.
  c.setNode(node('n1', 'c'));
  assert.deepEqual(Object.fromEntries(c.matchCounter(new Set(['ns']), sel, 'zone', 'web@zone').byDomain), { c: 1 });
  assert.deepEqual(Object.fromEntries(c.domains('zone')), { c: 1, b: 1 });
});

test('existing pods\u2019 equal anti-affinity terms merge into one aggregate', () => {
  const c = new SchedulerCache();
  c.setNode(node('n1', 'a'));
  c.setNode(node('n2', 'b'));
  const anti = {
    affinity: {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { labelSelector: { matchLabels: { app: 'x' } }, topologyKey: 'zone' },
        ],
      },
    },
  };
  c.addPod(pod('x1', { app: 'x' }, anti), 'n1');
  c.addPod(pod('x2', { app: 'x' }, anti), 'n2');
  const terms = [...c.existingTerms()];
  assert.equal(terms.length, 1);
  assert.deepEqual(Object.fromEntries(terms[0].byDomain), { a: 1, b: 1 });
  c.removePod('ns/x1');
  c.removePod('ns/x2');
  assert.equal([...c.existingTerms()].length, 0);
});

test('a removed node keeps its pods accounted until they are deleted, and only assumed pods can be forgotten', () => {
  const c = new SchedulerCache();
  c.setNode(node('n1', 'a'));
  c.addPod(pod('bound'), 'n1');
  c.forgetPod('ns/bound');
  assert.equal(c.hasPod('ns/bound'), true, 'a confirmed pod is not forgotten');
  c.removeNode('n1');
  assert.equal(c.get('n1'), undefined);
  assert.equal(c.nodes().length, 0);
  c.setNode(node('n1', 'a'));
  assert.equal(c.get('n1')!.requested.milliCPU, 1000, 'the pod still counts when the node returns');
  c.removeNode('n1');
  c.removePod('ns/bound');
  c.setNode(node('n1', 'a'));
  assert.equal(c.get('n1')!.requested.milliCPU, 0);
  assert.deepEqual(c.podCounts(), { pods: 0, assumed: 0 });
});
