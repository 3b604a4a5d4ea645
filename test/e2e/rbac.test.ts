/**
 * RBAC on the secure port, with the real kubectl: upstream's bootstrap
 * policy, `kubectl auth can-i`, upstream's 403 texts, Roles and bindings
 * taking effect (and losing it) as they are written, and
 * --authorization-mode=AlwaysAllow.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlPath, startServer, type TestServer } from './harness.js';
import { serviceAccountKubectl } from './fixtures/serviceaccount.js';
import { Kubectl } from './fixtures/kubectl/cli.js';

/** Polls until `fn` holds: the authorizer learns of role and binding changes from its watch. */
async function eventually(what: string, fn: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('RBAC (the default --authorization-mode)', () => {
  let server: TestServer;
  let admin: Kubectl;
  let sa: Kubectl;

  before(async () => {
    server = await startServer(['--secure-port', '0']);
    admin = new Kubectl(kubectlPath(), server.kubeconfig);
    sa = (await serviceAccountKubectl(server, admin, 'builder')).kubectl;
  });

  after(async () => {
    await sa?.close();
    await admin?.close();
    await server?.stop();
  });

  test("upstream's bootstrap roles and bindings exist, marked for reconciling", async () => {
    const role = await admin.getJSON(['clusterrole', 'cluster-admin']);
    assert.deepEqual(role.rules, [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ]);
    assert.equal(role.metadata.annotations['rbac.authorization.kubernetes.io/autoupdate'], 'true');
    assert.equal(role.metadata.labels['kubernetes.io/bootstrapping'], 'rbac-defaults');
    const binding = await admin.getJSON(['clusterrolebinding', 'system:public-info-viewer']);
    assert.deepEqual(
      binding.subjects.map((s: { name: string }) => s.name),
      ['system:authenticated', 'system:unauthenticated'],
    );
    for (const name of ['system:discovery', 'system:basic-user', 'system:monitoring'])
      await admin.ok(['get', 'clusterrolebinding', name]);
    const controller = await admin.getJSON([
      'clusterrolebinding',
      'system:controller:clusterrole-aggregation-controller',
    ]);
    assert.deepEqual(controller.subjects, [
      { kind: 'ServiceAccount', name: 'clusterrole-aggregation-controller', namespace: 'kube-system' },
    ]);
    const bootstrap = await admin.getJSON(['clusterrolebinding', 'kubeadm:node-autoapprove-bootstrap']);
    assert.equal(bootstrap.roleRef.name, 'system:certificates.k8s.io:certificatesigningrequests:nodeclient');
    assert.equal(bootstrap.subjects[0].name, 'system:bootstrappers:kubeadm:default-node-token');
    assert.match(
      await admin.ok(['get', 'roles,rolebindings', '-n', 'kube-system', '-o', 'name']),
      /role.rbac.authorization.k8s.io\/system::leader-locking-kube-scheduler\n[^]*rolebinding.rbac.authorization.k8s.io\/system:controller:token-cleaner/,
    );
    await admin.ok(['get', 'role', 'system:controller:bootstrap-signer', '-n', 'kube-public']);
    const view = await admin.getJSON(['clusterrole', 'view']);
    assert.equal(view.metadata.labels['rbac.authorization.k8s.io/aggregate-to-edit'], 'true');
  });

  test('system:masters may do anything; a ServiceAccount without bindings only discovery and self-review', async () => {
    assert.equal((await admin.ok(['auth', 'can-i', 'delete', 'nodes'])).trim(), 'yes');
    assert.match(await sa.ok(['auth', 'whoami']), /system:serviceaccount:default:builder/);
    const no = await sa.run(['auth', 'can-i', 'list', 'pods']);
    assert.equal(no.stdout.trim(), 'no');
    assert.equal(no.code, 1);
    assert.match(
      await sa.fails(['get', 'pods']),
      /pods is forbidden: User "system:serviceaccount:default:builder" cannot list resource "pods" in API group "" in the namespace "default"/,
    );
    assert.match(await sa.fails(['get', 'nodes']), /cannot list resource "nodes" in API group "" at the cluster scope/);
    assert.match(
      await sa.fails(['get', '--raw', '/metrics']),
      /forbidden: User "system:serviceaccount:default:builder" cannot get path "\/metrics"/,
    );
    assert.match(await sa.ok(['get', '--raw', '/version']), /"gitVersion"/);
    assert.match(await sa.ok(['api-resources', '-o', 'name']), /^pods$/m, 'discovery is allowed');
  });

  test('a Role and RoleBinding grant in their namespace only, and a deleted binding takes the grant away', async () => {
    await admin.ok(['create', 'role', 'pod-reader', '--verb=get,list,watch', '--resource=pods']);
    await admin.ok(['create', 'rolebinding', 'builder-reads', '--role=pod-reader', '--serviceaccount=default:builder']);
    await eventually(
      'the binding to take effect',
      async () => (await sa.run(['auth', 'can-i', 'list', 'pods'])).stdout.trim() === 'yes',
    );
    assert.equal(await sa.ok(['get', 'pods', '-o', 'name']), '');
    assert.equal((await sa.run(['auth', 'can-i', 'list', 'pods', '-n', 'kube-system'])).stdout.trim(), 'no');
    assert.equal((await sa.run(['auth', 'can-i', 'delete', 'pods'])).stdout.trim(), 'no');
    await admin.ok(['delete', 'rolebinding', 'builder-reads']);
    await eventually(
      'the grant to go',
      async () => (await sa.run(['auth', 'can-i', 'list', 'pods'])).stdout.trim() === 'no',
    );
  });

  test('a ClusterRoleBinding grants everywhere; resourceNames and subresources are matched as upstream', async () => {
    await admin.ok([
      'create',
      'clusterrole',
      'one-cm',
      '--verb=get',
      '--resource=configmaps',
      '--resource-name=allowed',
    ]);
    await admin.ok(['create', 'clusterrole', 'scaler', '--verb=update', '--resource=deployments/scale']);
    await admin.ok([
      'create',
      'clusterrolebinding',
      'builder-one-cm',
      '--clusterrole=one-cm',
      '--serviceaccount=default:builder',
    ]);
    await admin.ok([
      'create',
      'clusterrolebinding',
      'builder-scaler',
      '--clusterrole=scaler',
      '--serviceaccount=default:builder',
    ]);
    await eventually(
      'the bindings to take effect',
      async () =>
        (await sa.run(['auth', 'can-i', 'get', 'configmap/allowed', '-n', 'kube-system'])).stdout.trim() === 'yes',
    );
    assert.equal((await sa.run(['auth', 'can-i', 'get', 'configmap/other', '-n', 'kube-system'])).stdout.trim(), 'no');
    assert.equal(
      (await sa.run(['auth', 'can-i', 'update', 'deployments', '--subresource=scale'])).stdout.trim(),
      'yes',
    );
    assert.equal((await sa.run(['auth', 'can-i', 'update', 'deployments'])).stdout.trim(), 'no');
  });
});

describe('--authorization-mode=AlwaysAllow', () => {
  test('any authenticated user may do anything', async () => {
    const server = await startServer(['--secure-port', '0', '--authorization-mode', 'AlwaysAllow']);
    const admin = new Kubectl(kubectlPath(), server.kubeconfig);
    let sa: Kubectl | undefined;
    try {
      sa = (await serviceAccountKubectl(server, admin, 'anyone')).kubectl;
      assert.equal((await sa.ok(['auth', 'can-i', 'delete', 'nodes'])).trim(), 'yes');
      assert.equal(await sa.ok(['get', 'pods', '-o', 'name']), '');
    } finally {
      await sa?.close();
      await admin.close();
      await server.stop();
    }
  });
});
