/**
 * User impersonation with the real kubectl (`--as`, `--as-group`, `--as-uid`), as upstream's
 * WithImpersonation filter and test/cmd/authorization.sh check it: the caller needs
 * `impersonate` on each part, and the request is then authorized as the impersonated user.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlPath, startServer, type TestServer } from './harness.js';
import { serviceAccountKubectl } from './fixtures/serviceaccount.js';
import { Kubectl, until } from './fixtures/kubectl/cli.js';

let server: TestServer;
let admin: Kubectl;
let sa: Kubectl;

before(async () => {
  server = await startServer(['--secure-port', '0']);
  admin = new Kubectl(kubectlPath(), server.kubeconfig);
  sa = (await serviceAccountKubectl(server, admin, 'deployer')).kubectl;
  await admin.ok(['create', 'clusterrole', 'pod-reader', '--verb=get,list', '--resource=pods']);
  await admin.ok(['create', 'rolebinding', 'jane-reads', '--clusterrole=pod-reader', '--user=jane']);
});

after(async () => {
  await sa?.close();
  await admin?.close();
  await server?.stop();
});

test('an admin acts as another user with --as and --as-group, and is authorized as them', async () => {
  const who = await admin.ok(['auth', 'whoami', '--as=jane', '--as-group=devs', '--as-uid=1234', '-o', 'json']);
  assert.deepEqual(JSON.parse(who).status.userInfo, {
    username: 'jane',
    uid: '1234',
    groups: ['devs', 'system:authenticated'],
  });
  await until('jane to read pods', async () => (await admin.run(['get', 'pods', '--as=jane'])).code === 0);
  assert.match(
    await admin.fails(['get', 'pods', '-n', 'kube-system', '--as=jane']),
    /pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "kube-system"/,
  );
  assert.match(
    await admin.fails(['get', 'nodes', '--as=system:serviceaccount:default:deployer']),
    /User "system:serviceaccount:default:deployer" cannot list resource "nodes"/,
  );
  assert.equal((await admin.ok(['get', 'nodes', '--as=jane', '--as-group=system:masters', '-o', 'name'])).trim(), '');
  // As upstream's test/cmd/authorization.sh: repeated groups stay apart, commas and all.
  const groups = await admin.ok([
    'auth',
    'whoami',
    '--as=user1',
    '--as-group=group2',
    '--as-group=group1',
    '--as-group=,,,chameleon',
    '-o',
    'jsonpath={.status.userInfo.groups}',
  ]);
  assert.deepEqual(JSON.parse(groups), ['group2', 'group1', ',,,chameleon', 'system:authenticated']);
  assert.match(await admin.fails([...RAW_PODS, '--as-group=foo']), /without impersonating a user/);
});

// Raw reads: kubectl's discovery cache shows a denied impersonation as "unknown", so these skip discovery.
const RAW_PODS = ['get', '--raw', '/api/v1/namespaces/default/pods'];

test('impersonating needs the impersonate verb on users, groups and ServiceAccounts', async () => {
  assert.match(
    await sa.fails([...RAW_PODS, '--as=jane']),
    /users "jane" is forbidden: User "system:serviceaccount:default:deployer" cannot impersonate resource "users" in API group "" at the cluster scope/,
  );
  await admin.ok([
    'create',
    'clusterrole',
    'impersonate-jane',
    '--verb=impersonate',
    '--resource=users',
    '--resource-name=jane',
  ]);
  await admin.ok([
    'create',
    'clusterrolebinding',
    'deployer-as-jane',
    '--clusterrole=impersonate-jane',
    '--serviceaccount=default:deployer',
  ]);
  await until('impersonate to take effect', async () => (await sa.run([...RAW_PODS, '--as=jane'])).code === 0);
  assert.match(
    await sa.fails([...RAW_PODS, '--as=jane', '--as-group=system:masters']),
    /groups "system:masters" is forbidden: User "system:serviceaccount:default:deployer" cannot impersonate resource "groups"/,
  );
  assert.match(
    await sa.fails([...RAW_PODS, '--as=bob']),
    /users "bob" is forbidden: .* cannot impersonate resource "users"/,
    'only jane',
  );
  assert.match(
    await sa.fails([...RAW_PODS, '--as=system:serviceaccount:kube-system:default']),
    /serviceaccounts "default" is forbidden: .* cannot impersonate resource "serviceaccounts" in API group "" in the namespace "kube-system"/,
  );
});
