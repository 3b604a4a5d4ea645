import assert from 'node:assert/strict';
import { test } from 'node:test';
import { byNamespace, Indexer, NAMESPACE_INDEX } from '../../client/index.js';
import { POD_LABEL_INDEX, podLabelIndexFunc, SERVICE_SELECTOR_INDEX, serviceSelectorIndexFunc } from './label_index.js';
import { podServiceMemberships, selectedPods, servicesToSyncForPod } from './service.js';
import { matchesLabelSet, type Pod, type Service } from '../../api/index.js';

const pod = (ns: string, name: string, labels?: Record<string, string>, ip?: string): Pod => ({
  kind: 'Pod',
  metadata: { namespace: ns, name, resourceVersion: '1', ...(labels !== undefined ? { labels } : {}) },
  spec: { nodeName: 'n1', containers: [{ name: 'c' }] },
  status: { phase: 'Running', ...(ip !== undefined ? { podIP: ip } : {}) },
});
const svc = (ns: string, name: string, selector?: Record<string, string> | null): Service => ({
  kind: 'Service',
  metadata: { namespace: ns, name },
  spec: selector === undefined ? {} : { selector },
});

function caches(pods: Pod[], services: Service[]): { pods: Indexer<Pod>; services: Indexer<Service> } {
  const p = new Indexer<Pod>({ [NAMESPACE_INDEX]: byNamespace, [POD_LABEL_INDEX]: podLabelIndexFunc });
  const s = new Indexer<Service>({
    [NAMESPACE_INDEX]: byNamespace,
    [SERVICE_SELECTOR_INDEX]: serviceSelectorIndexFunc,
  });
  for (const x of pods) p.add(x);
  for (const x of services) s.add(x);
  return { pods: p, services: s };
}

const names = (objs: { metadata?: { name?: string } }[]): string[] => objs.map((o) => o.metadata!.name!).sort();

test('selectedPods returns exactly the pods of the namespace that a scan with the selector finds', () => {
  const pods = [
    pod('a', 'web-1', { app: 'web', tier: 'front' }),
    pod('a', 'web-2', { app: 'web', tier: 'back' }),
    pod('a', 'db-1', { app: 'db', tier: 'back' }),
    pod('b', 'web-3', { app: 'web', tier: 'front' }),
    pod('a', 'bare'),
  ];
  const c = caches(pods, []);
  const selectors: Record<string, string>[] = [
    { app: 'web' },
    { app: 'web', tier: 'front' },
    { tier: 'back' },
    { app: 'none' },
    { app: 'web', tier: 'none' },
  ];
  for (const sel of selectors) {
    const scan = pods.filter((p) => p.metadata!.namespace === 'a' && matchesLabelSet(sel, p.metadata?.labels));
    assert.deepEqual(names(selectedPods(c.pods, svc('a', 's', sel), sel)), names(scan), JSON.stringify(sel));
  }
  // A relabelled pod leaves the old pair and joins the new one.
  c.pods.update(pod('a', 'web-1', { app: 'db', tier: 'front' }));
  assert.deepEqual(names(selectedPods(c.pods, svc('a', 's', { app: 'web' }), { app: 'web' })), ['web-2']);
  assert.deepEqual(names(selectedPods(c.pods, svc('a', 's', { app: 'db' }), { app: 'db' })), ['db-1', 'web-1']);
});

test('podServiceMemberships finds the Services whose whole selector the pod matches, in its namespace only', () => {
  const services = [
    svc('a', 'web', { app: 'web' }),
    svc('a', 'web-front', { app: 'web', tier: 'front' }),
    svc('a', 'front', { tier: 'front' }),
    svc('a', 'no-selector'),
    svc('a', 'null-selector', null),
    svc('a', 'empty-selector', {}),
    svc('b', 'web', { app: 'web' }),
  ];
  const c = caches([], services);
  assert.deepEqual([...podServiceMemberships(c.services, pod('a', 'p', { app: 'web', tier: 'front' }))].sort(), [
    'a/front',
    'a/web',
    'a/web-front',
  ]);
  assert.deepEqual([...podServiceMemberships(c.services, pod('a', 'p', { app: 'web', tier: 'back' }))], ['a/web']);
  assert.deepEqual(
    [...podServiceMemberships(c.services, pod('a', 'p'))],
    [],
    'a pod without labels is selected by no Service',
  );
  c.services.update(svc('a', 'web', { app: 'other' }));
  assert.deepEqual(
    [...podServiceMemberships(c.services, pod('a', 'p', { app: 'web', tier: 'back' }))],
    [],
    'a changed selector is re-filed',
  );
});

test("servicesToSyncForPod covers the old labels' Services on a relabel and none on a change endpoints do not show", () => {
  const c = caches([], [svc('a', 'web', { app: 'web' }), svc('a', 'db', { app: 'db' })]);
  const old = pod('a', 'p', { app: 'web' }, '10.0.0.1');
  assert.deepEqual(
    [
      ...servicesToSyncForPod(
        c.services,
        { ...old, metadata: { ...old.metadata, labels: { app: 'db' }, resourceVersion: '2' } },
        old,
      ),
    ].sort(),
    ['a/db', 'a/web'],
  );
  assert.deepEqual(
    [
      ...servicesToSyncForPod(
        c.services,
        { ...old, metadata: { ...old.metadata, annotations: { x: 'y' }, resourceVersion: '2' } },
        old,
      ),
    ],
    [],
  );
});
