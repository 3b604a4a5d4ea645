import assert from 'node:assert/strict';
import { test } from 'node:test';
import { endpointsFromSlices } from './endpoint_info.js';
import { servicePorts } from './service_info.js';
import { service, slice, type ServiceOpts, type SliceEndpoint } from './testing/objects.js';
import { categorizeEndpoints } from './topology.js';

const node = { name: 'n1', zone: 'z1' };
function categorize(
  o: ServiceOpts,
  eps: SliceEndpoint[],
): { cluster: string[]; local: string[]; hasEndpoints: boolean; usedHints: boolean } {
  const svc = servicePorts(service('s', '10.96.0.1', o)).get('default/s:p')!;
  const list = endpointsFromSlices([slice('s', 's-1', eps)], node.name).get('default/s:p') ?? [];
  const c = categorizeEndpoints(list, svc, node);
  return {
    cluster: c.cluster.map((e) => e.ip),
    local: c.local.map((e) => e.ip),
    hasEndpoints: c.hasEndpoints,
    usedHints: c.usedHints,
  };
}

test('Cluster policy uses every ready endpoint', () => {
  const c = categorize({}, [
    { ip: '10.0.0.1', node: 'n1' },
    { ip: '10.0.0.2', node: 'n2' },
    { ip: '10.0.0.3', ready: false },
  ]);
  assert.deepEqual(c.cluster, ['10.0.0.1', '10.0.0.2']);
  assert.deepEqual(c.local, []);
});

test("internalTrafficPolicy Local uses only this node's endpoints, and none means drop, not reject", () => {
  assert.deepEqual(
    categorize({ internalPolicy: 'Local' }, [
      { ip: '10.0.0.1', node: 'n1' },
      { ip: '10.0.0.2', node: 'n2' },
    ]).local,
    ['10.0.0.1'],
  );
  const none = categorize({ internalPolicy: 'Local' }, [{ ip: '10.0.0.2', node: 'n2' }]);
  assert.deepEqual(none.local, []);
  assert.equal(none.hasEndpoints, true);
});

test('externalTrafficPolicy Local keeps cluster endpoints for the cluster IP', () => {
  const c = categorize({ nodePort: 30000, externalPolicy: 'Local' }, [
    { ip: '10.0.0.1', node: 'n1' },
    { ip: '10.0.0.2', node: 'n2' },
  ]);
  assert.deepEqual(c.cluster, ['10.0.0.1', '10.0.0.2']);
  assert.deepEqual(c.local, ['10.0.0.1']);
});

test('topology hints for this zone are used when every ready endpoint has hints', () => {
  const eps = [
    { ip: '10.0.0.1', hints: ['z1'] },
    { ip: '10.0.0.2', hints: ['z2'] },
  ];
  assert.deepEqual(categorize({ topology: true }, eps), {
    cluster: ['10.0.0.1'],
    local: [],
    hasEndpoints: true,
    usedHints: true,
  });
  assert.equal(categorize({}, eps).usedHints, false, 'hints are ignored without the topology-mode annotation');
  assert.equal(
    categorize({ topology: true }, [{ ip: '10.0.0.1', hints: ['z1'] }, { ip: '10.0.0.2' }]).usedHints,
    false,
    'one endpoint without hints disables them',
  );
  assert.equal(
    categorize({ topology: true }, [{ ip: '10.0.0.2', hints: ['z2'] }]).usedHints,
    false,
    'no hint for this zone disables them',
  );
});

test('without ready endpoints, serving terminating ones are used', () => {
  const c = categorize({}, [
    { ip: '10.0.0.1', ready: false, serving: true, terminating: true },
    { ip: '10.0.0.2', ready: false, serving: false, terminating: true },
  ]);
  assert.deepEqual(c.cluster, ['10.0.0.1']);
});

test('no endpoints at all means the service rejects', () => {
  assert.equal(categorize({}, []).hasEndpoints, false);
});
