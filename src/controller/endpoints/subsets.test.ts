import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addressCount, computeSubsets, truncateSubsets } from './subsets.js';
import type { Pod, Service } from '../../api/index.js';

const svc: Service = {
  metadata: { name: 'web', namespace: 'ns' },
  spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
};

function pod(i: number, ready: boolean, port = 8080): Pod {
  return {
    metadata: { name: `p${i}`, namespace: 'ns', uid: `u${i}` },
    spec: { nodeName: 'n1', containers: [{ name: 'c', ports: [{ name: 'http', containerPort: port }] }] },
    status: {
      phase: 'Running',
      podIP: `10.1.${i >> 8}.${i & 255}`,
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
    },
  };
}

test('addresses with the same ports pack into one subset, ready and not ready apart, sorted by IP', () => {
  const subsets = computeSubsets(svc, [pod(3, true), pod(1, true), pod(2, false), pod(4, true, 9090)]);
  assert.equal(subsets.length, 2);
  const s8080 = subsets.find((s) => s.ports?.[0]?.port === 8080)!;
  assert.deepEqual(
    s8080.addresses?.map((a) => a.ip),
    ['10.1.0.1', '10.1.0.3'],
  );
  assert.deepEqual(
    s8080.notReadyAddresses?.map((a) => a.ip),
    ['10.1.0.2'],
  );
  assert.equal(s8080.addresses?.[0]?.targetRef?.name, 'p1');
});

test('a terminating pod leaves Endpoints unless the Service publishes not-ready addresses', () => {
  const p = pod(1, true);
  p.metadata!.deletionTimestamp = '2026-12-02T00:00:00Z';
  assert.equal(addressCount(computeSubsets(svc, [p])), 0);
  assert.equal(addressCount(computeSubsets({ ...svc, spec: { ...svc.spec, publishNotReadyAddresses: true } }, [p])), 1);
});

test('truncation keeps 1,000 addresses, ready ones first', () => {
  const over = computeSubsets(
    svc,
    Array.from({ length: 1100 }, (_, i) => pod(i, true)),
  );
  assert.equal(truncateSubsets(over), true);
  assert.equal(addressCount(over), 1000);
  const mixed = computeSubsets(
    svc,
    Array.from({ length: 1100 }, (_, i) => pod(i, i < 900)),
  );
  assert.equal(truncateSubsets(mixed), true);
  assert.equal(mixed[0]!.addresses?.length, 900);
  assert.equal(mixed[0]!.notReadyAddresses?.length, 100);
  const under = computeSubsets(
    svc,
    Array.from({ length: 1000 }, (_, i) => pod(i, true)),
  );
  assert.equal(truncateSubsets(under), false);
});
