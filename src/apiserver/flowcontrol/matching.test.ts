import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FlowSchema } from '../../api/index.js';
import { parseRequestInfo } from '../request_info.js';
import type { UserInfo } from '../authentication/index.js';
import { APFController } from './controller.js';
import { bootstrappedController } from './testing.js';
import { FakeClock } from '../../clock/index.js';

const node: UserInfo = { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
const kcm: UserInfo = { username: 'system:kube-controller-manager', groups: ['system:authenticated'] };
const sched: UserInfo = { username: 'system:kube-scheduler', groups: ['system:authenticated'] };
const noisy: UserInfo = {
  username: 'system:serviceaccount:monitoring:agent',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:monitoring', 'system:authenticated'],
};
const ksSA: UserInfo = {
  username: 'system:serviceaccount:kube-system:endpoint-controller',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
};
const admin: UserInfo = { username: 'system:admin', groups: ['system:masters', 'system:authenticated'] };
const alice: UserInfo = { username: 'alice', groups: ['system:authenticated'] };
const anonymous: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

const controller = (extra: FlowSchema[] = []): APFController => bootstrappedController(new FakeClock(), extra);

const CASES: [string, UserInfo, string, string, string, string][] = [
  // [what, user, method, url, flow schema, distinguisher]
  [
    'a lease renewal from a node',
    node,
    'PUT',
    '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1',
    'system-node-high',
    'system:node:n1',
  ],
  ['node status from a node', node, 'PATCH', '/api/v1/nodes/n1/status', 'system-node-high', 'system:node:n1'],
  [
    'a node reading its pods',
    node,
    'GET',
    '/api/v1/pods?fieldSelector=spec.nodeName%3Dn1',
    'system-nodes',
    'system:node:n1',
  ],
  ['a node reading a secret', node, 'GET', '/api/v1/namespaces/ns/secrets/s', 'system-nodes', 'system:node:n1'],
  [
    'controller-manager leader election',
    kcm,
    'PUT',
    '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kcm',
    'system-leader-election',
    'system:kube-controller-manager',
  ],
  [
    'controller-manager endpoints',
    kcm,
    'PUT',
    '/api/v1/namespaces/ns/endpoints/svc',
    'endpoint-controller',
    'system:kube-controller-manager',
  ],
  ['controller-manager pods by namespace', kcm, 'POST', '/api/v1/namespaces/ns/pods', 'kube-controller-manager', 'ns'],
  ['scheduler binding', sched, 'POST', '/api/v1/namespaces/ns/pods/p/binding', 'kube-scheduler', 'ns'],
  [
    'kube-system SA endpoints',
    ksSA,
    'PUT',
    '/api/v1/namespaces/ns/endpoints/svc',
    'endpoint-controller',
    'system:serviceaccount:kube-system:endpoint-controller',
  ],
  ['kube-system SA pods', ksSA, 'GET', '/api/v1/namespaces/ns/pods', 'kube-system-service-accounts', 'ns'],
  [
    'a monitoring agent listing all pods',
    noisy,
    'GET',
    '/api/v1/pods',
    'service-accounts',
    'system:serviceaccount:monitoring:agent',
  ],
  ['system:masters', admin, 'DELETE', '/api/v1/namespaces/ns', 'exempt', ''],
  ['a user', alice, 'GET', '/api/v1/namespaces/ns/configmaps', 'global-default', 'alice'],
  ['an anonymous probe', anonymous, 'GET', '/readyz', 'probes', ''],
  ['an anonymous version read', anonymous, 'GET', '/version', 'global-default', 'system:anonymous'],
];

for (const [what, user, method, url, schema, distinguisher] of CASES) {
  test(`classifies ${what} as ${schema}`, () => {
    const c = controller().classify(parseRequestInfo(method, url), user);
    assert.equal(c.schema.name, schema);
    assert.equal(c.distinguisher, distinguisher);
    assert.equal(c.level.name, c.schema.fs.spec!.priorityLevelConfiguration.name);
  });
}

test('a dangling schema is skipped for the next match; a matching one with precedence wins', () => {
  const rule = {
    subjects: [{ kind: 'User', user: { name: 'alice' } }],
    resourceRules: [{ verbs: ['list'], apiGroups: [''], resources: ['configmaps'], namespaces: ['ns'] }],
  };
  const mk = (name: string, pl: string, precedence: number): FlowSchema => ({
    metadata: { name },
    spec: { priorityLevelConfiguration: { name: pl }, matchingPrecedence: precedence, rules: [rule] },
  });
  const info = parseRequestInfo('GET', '/api/v1/namespaces/ns/configmaps');
  const c = controller([mk('dangling', 'missing', 10), mk('mine', 'workload-high', 20), mk('later', 'system', 30)]);
  assert.equal(c.classify(info, alice).schema.name, 'mine');
  // The namespace and verb must match too.
  assert.equal(
    c.classify(parseRequestInfo('GET', '/api/v1/namespaces/other/configmaps'), alice).schema.name,
    'global-default',
  );
  assert.equal(
    c.classify(parseRequestInfo('POST', '/api/v1/namespaces/ns/configmaps'), alice).schema.name,
    'global-default',
  );
});

test('without any stored configuration the built-in mandatory objects classify', () => {
  const c = new APFController({
    clock: new FakeClock(),
    serverConcurrencyLimit: 600,
    stats: { objectCount: () => undefined, listFromStorage: () => false },
  });
  assert.equal(c.classify(parseRequestInfo('GET', '/api/v1/pods'), admin).level.name, 'exempt');
  const other = c.classify(parseRequestInfo('GET', '/api/v1/pods'), alice);
  assert.equal(other.level.name, 'catch-all');
  assert.equal(other.level.nominal, 600);
});

test("nominal seats are the level's share of the server's, and exempt levels run without queuing", () => {
  const c = controller();
  const byName = new Map(c.priorityLevels().map((l) => [l.name, l]));
  // Shares: 5 + 30 + 40 + 10 + 40 + 100 + 20 = 245 of 600 seats.
  assert.equal(byName.get('node-high')!.nominal, Math.ceil((600 * 40) / 245));
  assert.equal(byName.get('workload-low')!.nominal, Math.ceil((600 * 100) / 245));
  assert.equal(byName.get('exempt')!.queues, undefined);
  const cl = c.classify(parseRequestInfo('GET', '/api/v1/pods'), admin);
  const a = c.admit(cl, { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 }, () => undefined);
  assert.ok(typeof a === 'object' && !(a instanceof Promise));
  assert.equal(byName.get('exempt')!.exemptSeats, 1);
  a.finish();
  assert.equal(byName.get('exempt')!.exemptSeats, 0);
});
