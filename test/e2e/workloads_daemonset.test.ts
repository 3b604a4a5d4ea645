/**
 * DaemonSets on a hollow fleet with `kscale controller-manager`, the
 * scheduler and the real kubectl: one pod per node, bound through node
 * affinity on metadata.name; a node joining gets a pod and a node label
 * change moves one; a rolling update completes under maxUnavailable; rollout
 * status, history and undo read and restore ControllerRevisions; bad input is
 * a 422.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { RESOURCES } from '../../src/client/index.js';
import type { Pod } from '../../src/api/index.js';
import { startFleet, waitFor, type FleetProcess } from './fixtures/cluster.js';
import { header, row, type Kubectl } from './fixtures/kubectl/cli.js';
import { startKubectlCluster, type KubectlCluster } from './fixtures/workloads.js';

let cluster: KubectlCluster;
let k: Kubectl;
let extra: FleetProcess | undefined;

before(async () => {
  cluster = await startKubectlCluster(3);
  k = cluster.k;
});
after(async () => {
  await extra?.stop();
  await cluster?.stop();
});

const livePods = async (app: string): Promise<Pod[]> =>
  (
    await cluster.client.resource<Pod>(RESOURCES.pods).list({ namespace: 'default', labelSelector: `app=${app}` })
  ).items.filter((p) => p.metadata?.deletionTimestamp === undefined);

function daemonSet(name: string, image: string, extraSpec: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'agent', image }], ...extraSpec },
      },
    },
  });
}

const nodesOf = (pods: Pod[]): string[] => pods.map((p) => p.spec?.nodeName ?? '').sort();

test('a DaemonSet runs one pod per node, bound by node affinity, with kubectl columns and a ControllerRevision', async () => {
  await k.ok(['create', '-f', '-'], { input: daemonSet('agent', 'agent:1') });
  const out = await k.ok(['rollout', 'status', 'ds/agent', '--timeout=60s'], { timeoutMs: 70_000 });
  assert.match(out, /daemon set "agent" successfully rolled out/);
  const pods = await livePods('agent');
  assert.deepEqual(nodesOf(pods), ['hollow-node-0', 'hollow-node-1', 'hollow-node-2']);
  for (const p of pods) {
    const terms = p.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
    assert.deepEqual(terms, [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [p.spec?.nodeName] }] }]);
    const keys = (p.spec?.tolerations ?? []).map((t) => `${t.key}:${t.effect}`);
    for (const want of ['node.kubernetes.io/not-ready:NoExecute', 'node.kubernetes.io/unschedulable:NoSchedule'])
      assert.ok(keys.includes(want), `${want} in ${keys.join(',')}`);
    assert.ok(p.metadata?.labels?.['controller-revision-hash'], 'pods carry the revision hash');
  }
  const table = await k.ok(['get', 'ds', 'agent']);
  assert.deepEqual(header(table), [
    'NAME',
    'DESIRED',
    'CURRENT',
    'READY',
    'UP-TO-DATE',
    'AVAILABLE',
    'NODE SELECTOR',
    'AGE',
  ]);
  const r = row(table, 'agent');
  assert.deepEqual(
    [r.DESIRED, r.CURRENT, r.READY, r['UP-TO-DATE'], r.AVAILABLE, r['NODE SELECTOR']],
    ['3', '3', '3', '3', '3', '<none>'],
  );
  const revs = await k.ok(['get', 'controllerrevisions']);
  assert.deepEqual(header(revs), ['NAME', 'CONTROLLER', 'REVISION', 'AGE']);
  const hash = pods[0].metadata!.labels!['controller-revision-hash'];
  const rev = row(revs, `agent-${hash}`);
  assert.equal(rev.CONTROLLER, 'daemonset.apps/agent');
  assert.equal(rev.REVISION, '1');
});

test('a node that joins gets a daemon pod', async () => {
  extra = startFleet(cluster.server.kubeconfig, ['--count', '1', '--name-prefix', 'late-node-']);
  await extra.registered;
  await waitFor(
    'a pod on late-node-0',
    async () => ((await livePods('agent')).some((p) => p.spec?.nodeName === 'late-node-0') ? true : undefined),
    30_000,
  );
  await k.ok(['rollout', 'status', 'ds/agent', '--timeout=60s'], { timeoutMs: 70_000 });
  assert.equal((await livePods('agent')).length, 4);
});

test('a nodeSelector DaemonSet follows a node label change', async () => {
  await k.ok(['create', '-f', '-'], { input: daemonSet('picky', 'picky:1', { nodeSelector: { role: 'edge' } }) });
  await waitFor('DaemonSet status observed', async () => {
    const ds = await k.getJSON(['ds', 'picky']);
    return ds.status?.observedGeneration === 1 ? true : undefined;
  });
  assert.equal((await livePods('picky')).length, 0);
  await k.ok(['label', 'node', 'hollow-node-1', 'role=edge']);
  await waitFor('a pod on the labelled node', async () => {
    const pods = await livePods('picky');
    return pods.length === 1 && pods[0].spec?.nodeName === 'hollow-node-1' ? true : undefined;
  });
  assert.equal(row(await k.ok(['get', 'ds', 'picky']), 'picky')['NODE SELECTOR'], 'role=edge');
  await k.ok(['label', 'node', 'hollow-node-1', 'role-']);
  await waitFor('the pod gone again', async () => ((await livePods('picky')).length === 0 ? true : undefined));
});

test('a rolling update completes, and rollout history and undo go through ControllerRevisions', async () => {
  await k.ok(['patch', 'ds', 'agent', '-p', '{"spec":{"updateStrategy":{"rollingUpdate":{"maxUnavailable":"50%"}}}}']);
  await k.ok(['set', 'image', 'ds/agent', 'agent=agent:2']);
  const out = await k.ok(['rollout', 'status', 'ds/agent', '--timeout=90s'], { timeoutMs: 100_000 });
  assert.match(out, /successfully rolled out/);
  const pods = await livePods('agent');
  assert.equal(pods.length, 4);
  assert.ok(pods.every((p) => p.spec?.containers[0].image === 'agent:2'));
  const history = await k.ok(['rollout', 'history', 'ds/agent']);
  assert.match(history, /^1\s/m);
  assert.match(history, /^2\s/m);
  const rev1 = await k.ok(['rollout', 'history', 'ds/agent', '--revision=1']);
  assert.match(rev1, /agent:1/);

  await k.ok(['rollout', 'undo', 'ds/agent']);
  await k.ok(['rollout', 'status', 'ds/agent', '--timeout=90s'], { timeoutMs: 100_000 });
  const ds = await k.getJSON(['ds', 'agent']);
  assert.equal(ds.spec.template.spec.containers[0].image, 'agent:1');
  await waitFor('every pod back on agent:1', async () => {
    const now = await livePods('agent');
    return now.length === 4 && now.every((p) => p.spec?.containers[0].image === 'agent:1') ? true : undefined;
  });
  // The undo renumbers revision 1 as 3 rather than copying it.
  const after = await k.ok(['rollout', 'history', 'ds/agent']);
  assert.match(after, /^2\s/m);
  assert.match(after, /^3\s/m);
  assert.doesNotMatch(after, /^1\s/m);
});

test('an OnDelete DaemonSet keeps old pods until they are deleted', async () => {
  await k.ok(['create', '-f', '-'], { input: daemonSet('lazy', 'lazy:1') });
  await k.ok(['rollout', 'status', 'ds/lazy', '--timeout=60s'], { timeoutMs: 70_000 });
  await k.ok([
    'patch',
    'ds',
    'lazy',
    '--type=merge',
    '-p',
    '{"spec":{"updateStrategy":{"type":"OnDelete","rollingUpdate":null}}}',
  ]);
  await k.ok(['set', 'image', 'ds/lazy', 'agent=lazy:2']);
  await waitFor('status observes the new generation', async () => {
    const ds = await k.getJSON(['ds', 'lazy']);
    return ds.status?.observedGeneration === ds.metadata.generation ? ds : undefined;
  });
  await new Promise((r) => setTimeout(r, 1500));
  const before = await livePods('lazy');
  assert.ok(
    before.every((p) => p.spec?.containers[0].image === 'lazy:1'),
    'OnDelete leaves running pods alone',
  );
  await k.ok(['delete', 'pod', before[0].metadata!.name!, '--wait=false']);
  await waitFor(
    'the deleted pod replaced with the new template',
    async () => {
      const now = await livePods('lazy');
      return now.length === before.length && now.filter((p) => p.spec?.containers[0].image === 'lazy:2').length === 1
        ? true
        : undefined;
    },
    30_000,
  );
});

test('bad DaemonSets are 422: a selector that misses the template, a changed selector', async () => {
  const bad = JSON.parse(daemonSet('bad', 'x:1')) as { spec: { selector: unknown } };
  bad.spec.selector = { matchLabels: { app: 'other' } };
  const err = await k.fails(['create', '-f', '-'], { input: JSON.stringify(bad) });
  assert.match(
    err,
    /The DaemonSet "bad" is invalid: spec.template.metadata.labels: Invalid value: .*`selector` does not match template `labels`/,
  );
  const err2 = await k.fails([
    'patch',
    'ds',
    'agent',
    '--type=merge',
    '-p',
    '{"spec":{"selector":{"matchLabels":{"app":"agent","x":"y"}},"template":{"metadata":{"labels":{"x":"y"}}}}}',
  ]);
  assert.match(err2, /spec.selector: Invalid value: .*field is immutable/);
});

test('deleting a DaemonSet deletes its pods and ControllerRevisions (garbage collector)', async () => {
  await k.ok(['delete', 'ds', 'lazy', '--cascade=foreground', '--timeout=60s'], { timeoutMs: 70_000 });
  await waitFor(
    'pods and revisions gone',
    async () => {
      const revs = await k.getJSON(['controllerrevisions']);
      const left = (revs.items as { metadata: { name: string } }[]).filter((r) => r.metadata.name.startsWith('lazy-'));
      return (await livePods('lazy')).length === 0 && left.length === 0 ? true : undefined;
    },
    30_000,
  );
});
