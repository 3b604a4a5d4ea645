import { test } from 'node:test';
import assert from 'node:assert/strict';
import { desiredEndpoints } from './endpoint.js';
import { reconcile, type ReconcilePlan } from './reconciler.js';
import type { EndpointSlice, Pod, Service } from '../../api/index.js';

const svc: Service = {
  metadata: { name: 'web', namespace: 'ns', uid: 'svc-uid', labels: { app: 'web' } },
  spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] },
};

function pod(i: number, ready = true): Pod {
  return {
    metadata: { name: `web-${i}`, namespace: 'ns', uid: `pod-${i}`, labels: { app: 'web' } },
    spec: { nodeName: `node-${i % 7}`, containers: [{ name: 'c' }] },
    status: {
      phase: 'Running',
      podIP: `10.0.${i >> 8}.${i & 255}`,
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
    },
  };
}

/** Applies a plan as the API server would, naming created slices. */
function apply(existing: EndpointSlice[], plan: ReconcilePlan): EndpointSlice[] {
  let n = existing.length;
  const byName = new Map(existing.map((s) => [s.metadata!.name!, s]));
  for (const s of plan.toDelete) byName.delete(s.metadata!.name!);
  for (const s of plan.toUpdate) byName.set(s.metadata!.name!, s);
  for (const s of plan.toCreate) {
    const name = `web-${n++}`;
    byName.set(name, { ...s, metadata: { ...s.metadata, name } });
  }
  return [...byName.values()];
}

const zone = (): undefined => undefined;
const sync = (existing: EndpointSlice[], pods: Pod[]): ReconcilePlan =>
  reconcile(svc, existing, desiredEndpoints(svc, pods, zone), 100);
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

test('250 pods make 3 slices of at most 100 endpoints', () => {
  const plan = sync(
    [],
    range(250).map((i) => pod(i)),
  );
  assert.equal(plan.toCreate.length, 3);
  assert.deepEqual(plan.toCreate.map((s) => s.endpoints.length).sort(), [100, 100, 50]);
  assert.equal(plan.toCreate[0]!.metadata?.labels?.['kubernetes.io/service-name'], 'web');
  assert.deepEqual(plan.toCreate[0]!.ports, [{ name: 'http', protocol: 'TCP', port: 8080 }]);
});

test('removing one pod updates only the slice that held it; a resync of the same state writes nothing', () => {
  const pods = range(250).map((i) => pod(i));
  const slices = apply([], sync([], pods));
  assert.equal(sync(slices, pods).toUpdate.length + sync(slices, pods).toCreate.length, 0);
  const plan = sync(
    slices,
    pods.filter((_, i) => i !== 123),
  );
  assert.equal(plan.toUpdate.length, 1);
  assert.equal(plan.toCreate.length + plan.toDelete.length, 0);
  assert.equal(plan.unchanged.length, 2);
  assert.equal(plan.toUpdate[0]!.endpoints.length, 99);
});

test('a pod turning unready changes one endpoint in one slice', () => {
  const pods = range(250).map((i) => pod(i));
  const slices = apply([], sync([], pods));
  pods[7] = pod(7, false);
  const plan = sync(slices, pods);
  assert.equal(plan.toUpdate.length, 1);
  const ep = plan.toUpdate[0]!.endpoints.find((e) => e.targetRef?.name === 'web-7')!;
  assert.deepEqual(ep.conditions, { ready: false, serving: false, terminating: false });
});

test('new endpoints go to the fullest unchanged slice they fit in, then to new slices', () => {
  const slices = apply(
    [],
    sync(
      [],
      range(250).map((i) => pod(i)),
    ),
  );
  const plan = sync(
    slices,
    range(260).map((i) => pod(i)),
  );
  assert.equal(plan.toCreate.length, 0);
  assert.equal(plan.toUpdate.length, 1);
  assert.equal(plan.toUpdate[0]!.endpoints.length, 60);
  const big = sync(
    slices,
    range(400).map((i) => pod(i)),
  );
  assert.equal(big.toUpdate.length + big.toCreate.length, 2);
});

test('a terminating pod stays as a terminating, serving endpoint', () => {
  const p = pod(1);
  p.metadata!.deletionTimestamp = '2026-12-02T00:00:00Z';
  const plan = sync([], [p]);
  assert.deepEqual(plan.toCreate[0]!.endpoints[0]!.conditions, { ready: false, serving: true, terminating: true });
});

test('no pods keeps one empty placeholder slice; its resync writes nothing', () => {
  const plan = sync([], []);
  assert.equal(plan.toCreate.length, 1);
  assert.equal(plan.toCreate[0]!.endpoints.length, 0);
  const slices = apply([], plan);
  const again = sync(slices, []);
  assert.equal(again.toCreate.length + again.toUpdate.length + again.toDelete.length, 0);
  const withPods = apply(slices, sync(slices, [pod(1)]));
  assert.equal(withPods.length, 1, 'the placeholder is reused for the first endpoints');
});

test('slices of an older Service with the same name are replaced', () => {
  const slices = apply([], sync([], [pod(1)]));
  const newSvc = { ...svc, metadata: { ...svc.metadata, uid: 'svc-uid-2' } };
  const plan = reconcile(newSvc, slices, desiredEndpoints(newSvc, [pod(1)], zone), 100);
  assert.equal(plan.toUpdate.length, 1);
  assert.equal(plan.toUpdate[0]!.metadata?.ownerReferences?.[0]?.uid, 'svc-uid-2');
});
