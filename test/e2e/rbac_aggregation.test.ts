/**
 * The clusterrole-aggregation controller in `kscale controller-manager`,
 * against a secure server with upstream's bootstrap policy: a ClusterRole
 * labelled aggregate-to-view adds its rules to view, and through view's own
 * labels to edit and admin; changing or deleting it changes them again.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlPath, startServer, type TestServer } from './harness.js';
import { Kubectl, until } from './fixtures/kubectl/cli.js';
import { startControllerManagerProcess } from './fixtures/workloads.js';

type Rules = { verbs: string[]; apiGroups?: string[]; resources?: string[] }[];

let server: TestServer;
let k: Kubectl;
let cm: Awaited<ReturnType<typeof startControllerManagerProcess>>;

before(async () => {
  server = await startServer(['--secure-port', '0']);
  k = new Kubectl(kubectlPath(), server.kubeconfig);
  cm = await startControllerManagerProcess(server.kubeconfig, ['--controllers', 'clusterrole-aggregation']);
});

after(async () => {
  await cm?.stop();
  await k?.close();
  await server?.stop();
});

async function rulesOf(role: string): Promise<Rules> {
  return ((await k.getJSON(['clusterrole', role])).rules ?? []) as Rules;
}

const grants = (rules: Rules, resource: string, verb: string): boolean =>
  rules.some((r) => r.resources?.includes(resource) && r.verbs.includes(verb));

test("view, edit and admin start out as the union of upstream's aggregate-to roles", async () => {
  await until('view to aggregate', async () => grants(await rulesOf('view'), 'pods', 'list'));
  const view = await rulesOf('view');
  assert.ok(!grants(view, 'secrets', 'get'), 'view never reads secrets');
  await until('edit to include view', async () => {
    const edit = await rulesOf('edit');
    return grants(edit, 'pods', 'list') && grants(edit, 'secrets', 'create');
  });
  await until('admin to include edit', async () => grants(await rulesOf('admin'), 'rolebindings', 'create'));
});

test('a ClusterRole labelled aggregate-to-view adds its rules to view, edit and admin, and takes them away', async () => {
  // A custom resource's rules, as an operator's chart would add them (the group need not be served).
  const widgets = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'widgets-view', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
    rules: [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] }],
  };
  await k.ok(['create', '-f', '-'], { input: JSON.stringify(widgets) });
  for (const role of ['view', 'edit', 'admin'])
    await until(`${role} to gain widgets`, async () => grants(await rulesOf(role), 'widgets', 'list'));
  const view = await k.getJSON(['clusterrole', 'view']);
  assert.deepEqual(view.aggregationRule.clusterRoleSelectors, [
    { matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
  ]);
  await k.ok(['delete', 'clusterrole', 'widgets-view']);
  for (const role of ['view', 'edit', 'admin'])
    await until(`${role} to lose widgets`, async () => !grants(await rulesOf(role), 'widgets', 'list'));
  assert.ok(grants(await rulesOf('view'), 'pods', 'list'), 'the bootstrap rules stay');
});

test('kubectl create clusterrole --aggregation-rule makes a role the controller fills, as upstream rbac.sh does', async () => {
  await k.ok(['create', 'clusterrole', 'aggregation-reader', '--aggregation-rule=foo1=foo2']);
  assert.deepEqual((await k.getJSON(['clusterrole', 'aggregation-reader'])).aggregationRule.clusterRoleSelectors, [
    { matchLabels: { foo1: 'foo2' } },
  ]);
  await k.ok(['create', 'clusterrole', 'foo-source', '--verb=get', '--resource=services']);
  await k.ok(['label', 'clusterrole', 'foo-source', 'foo1=foo2']);
  await until('aggregation-reader to gain services', async () =>
    grants(await rulesOf('aggregation-reader'), 'services', 'get'),
  );
});
