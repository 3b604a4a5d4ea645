import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DaemonSet, Node, Pod } from '../../api/index.js';
import { daemonSetStatusCounts, podsShouldBeOnNode, rollingUpdatePlan } from './update.js';
import { daemonPodTolerations, nodeNameAffinity, nodeShouldRunDaemonPod, targetNodeName } from './util.js';

const node = (name: string, labels: Record<string, string> = {}, taints: Node['spec'] = {}): Node => ({
  metadata: { name, labels },
  spec: taints,
});
const ds = (spec: Record<string, unknown> = {}, strategy?: DaemonSet['spec']): DaemonSet => ({
  metadata: { name: 'd', namespace: 'ns', uid: 'u', generation: 1 },
  spec: {
    selector: { matchLabels: { app: 'd' } },
    template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c' }], ...spec } },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
    ...strategy,
  },
});
const ready = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
const pod = (name: string, hash: string, nodeName: string, status: Pod['status'] = ready, created = 0): Pod => ({
  metadata: {
    name,
    namespace: 'ns',
    labels: { app: 'd', 'controller-revision-hash': hash },
    creationTimestamp: new Date(created * 1000).toISOString(),
  },
  spec: { containers: [{ name: 'c' }], nodeName },
  status,
});

test('nodes run a daemon pod by nodeSelector, required affinity and tolerated taints', () => {
  const should = nodeShouldRunDaemonPod(
    ds({
      nodeSelector: { disk: 'ssd' },
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }],
          },
        },
      },
    }),
  );
  assert.deepEqual(should(node('n1', { disk: 'ssd', zone: 'a' })), { shouldRun: true, shouldContinueRunning: true });
  assert.equal(should(node('n2', { disk: 'hdd', zone: 'a' })).shouldRun, false);
  assert.equal(should(node('n3', { disk: 'ssd', zone: 'b' })).shouldRun, false);
  // Default tolerations: unschedulable and not-ready nodes still run daemon pods.
  const plain = nodeShouldRunDaemonPod(ds());
  const cordoned = { taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }] };
  assert.equal(plain(node('c', {}, cordoned)).shouldRun, true);
  const notReady = { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }] };
  assert.equal(plain(node('nr', {}, notReady)).shouldRun, true);
  // An untolerated NoSchedule taint keeps new pods off but lets running ones stay; NoExecute evicts.
  const noSchedule = { taints: [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }] };
  assert.deepEqual(plain(node('t1', {}, noSchedule)), { shouldRun: false, shouldContinueRunning: true });
  const noExecute = { taints: [{ key: 'dedicated', value: 'x', effect: 'NoExecute' }] };
  assert.deepEqual(plain(node('t2', {}, noExecute)), { shouldRun: false, shouldContinueRunning: false });
  const networkDown = { taints: [{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' }] };
  assert.equal(plain(node('net', {}, networkDown)).shouldRun, false);
  assert.equal(nodeShouldRunDaemonPod(ds({ hostNetwork: true }))(node('net', {}, networkDown)).shouldRun, true);
  assert.equal(nodeShouldRunDaemonPod(ds({ nodeName: 'only' }))(node('other')).shouldRun, false);
});

test('daemon pods get the default tolerations once and a metadata.name node affinity', () => {
  const tols = daemonPodTolerations({
    containers: [],
    tolerations: [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 },
    ],
  });
  assert.equal(tols.filter((t) => t.key === 'node.kubernetes.io/not-ready').length, 1);
  assert.equal(tols.length, 6);
  const a = nodeNameAffinity({ podAntiAffinity: {} }, 'n7');
  assert.deepEqual(a.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms, [
    { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n7'] }] },
  ]);
  assert.ok(a.podAntiAffinity);
  assert.equal(targetNodeName({ spec: { containers: [], affinity: a } }), 'n7');
});

test('podsShouldBeOnNode creates where missing, keeps the oldest of duplicates, clears nodes it may not stay on', () => {
  const d = ds();
  const yes = { shouldRun: true, shouldContinueRunning: true };
  assert.deepEqual(podsShouldBeOnNode([], yes, d, 'h', 0), { create: true, delete: [] });
  const older = pod('a', 'h', 'n', ready, 1);
  const newer = pod('b', 'h', 'n', ready, 2);
  assert.deepEqual(
    podsShouldBeOnNode([newer, older], yes, d, 'h', 0).delete.map((p) => p.metadata?.name),
    ['b'],
  );
  const failed = pod('f', 'h', 'n', { phase: 'Failed' });
  assert.deepEqual(podsShouldBeOnNode([failed], yes, d, 'h', 0), { create: true, delete: [failed] });
  const no = { shouldRun: false, shouldContinueRunning: false };
  assert.deepEqual(podsShouldBeOnNode([older], no, d, 'h', 0).delete, [older]);
});

test('rolling update without surge deletes old pods up to maxUnavailable, unavailable ones always', () => {
  const d = ds({}, { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2, maxSurge: 0 } } });
  const nodes = new Map<string, Pod[]>([
    ['n1', [pod('p1', 'old', 'n1')]],
    ['n2', [pod('p2', 'old', 'n2')]],
    ['n3', [pod('p3', 'old', 'n3')]],
    ['n4', [pod('p4', 'old', 'n4', { phase: 'Pending' })]],
    ['n5', [pod('p5', 'new', 'n5')]],
  ]);
  const plan = rollingUpdatePlan(d, nodes, 5, 'new', 0);
  assert.deepEqual(
    plan.delete.map((p) => p.metadata?.name),
    ['p4', 'p1', 'p2'],
  );
  assert.deepEqual(plan.createOn, []);
  // A new pod not yet available uses up the budget.
  nodes.set('n5', [pod('p5', 'new', 'n5', { phase: 'Pending' })]);
  assert.deepEqual(
    rollingUpdatePlan(d, nodes, 5, 'new', 0).delete.map((p) => p.metadata?.name),
    ['p4', 'p1'],
  );
});

test('rolling update with surge starts new pods beside old ones and deletes an old one once its new one is available', () => {
  const d = ds({}, { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } } });
  const nodes = new Map<string, Pod[]>([
    ['n1', [pod('o1', 'old', 'n1'), pod('n1new', 'new', 'n1')]],
    ['n2', [pod('o2', 'old', 'n2')]],
    ['n3', [pod('o3', 'old', 'n3')]],
  ]);
  const plan = rollingUpdatePlan(d, nodes, 3, 'new', 0);
  assert.deepEqual(
    plan.delete.map((p) => p.metadata?.name),
    ['o1'],
  );
  assert.deepEqual(plan.createOn, ['n2']);
});

test('status counts desired, current, ready, updated and misscheduled nodes', () => {
  const d = ds({ nodeSelector: { run: 'yes' } });
  const nodes = [node('a', { run: 'yes' }), node('b', { run: 'yes' }), node('c')];
  const byNode = new Map<string, Pod[]>([
    ['a', [pod('pa', 'h', 'a')]],
    ['b', [pod('pb', 'old', 'b', { phase: 'Pending' })]],
    ['c', [pod('pc', 'h', 'c')]],
  ]);
  assert.deepEqual(daemonSetStatusCounts(d, nodes, nodeShouldRunDaemonPod(d), byNode, 'h', 0), {
    desiredNumberScheduled: 2,
    currentNumberScheduled: 2,
    numberMisscheduled: 1,
    numberReady: 1,
    numberAvailable: 1,
    updatedNumberScheduled: 1,
    numberUnavailable: 1,
  });
});
