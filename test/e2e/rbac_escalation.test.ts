/**
 * RBAC escalation prevention with the real kubectl, as upstream's test/cmd/rbac.sh and the
 * registry's escalation checks: a user who may write Roles and bindings still cannot grant
 * what they do not hold, unless they may `escalate` (roles) or `bind` (bindings).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlPath, startServer, type TestServer } from './harness.js';
import { serviceAccountKubectl } from './fixtures/serviceaccount.js';
import { Kubectl, until } from './fixtures/kubectl/cli.js';

let server: TestServer;
let admin: Kubectl;
let sa: Kubectl;
const NS = 'team';
const SA_USER = `system:serviceaccount:${NS}:manager`;

/** Grants the manager `verb` on `resource` (one name of it, if given) through a Role and a RoleBinding of their own. */
async function grantManager(role: string, verb: string, resource: string, name?: string): Promise<void> {
  const names = name === undefined ? [] : [`--resource-name=${name}`];
  await admin.ok(['create', 'role', role, '-n', NS, `--verb=${verb}`, `--resource=${resource}`, ...names]);
  await admin.ok([
    'create',
    'rolebinding',
    `manager-${role}`,
    '-n',
    NS,
    `--role=${role}`,
    `--serviceaccount=${NS}:manager`,
  ]);
}

const canI = async (args: string[]): Promise<string> =>
  (await sa.run(['auth', 'can-i', ...args, '-n', NS])).stdout.trim();

before(async () => {
  server = await startServer(['--secure-port', '0']);
  admin = new Kubectl(kubectlPath(), server.kubeconfig);
  await admin.ok(['create', 'namespace', NS]);
  // The manager may write Roles and RoleBindings in its namespace and read pods, nothing more (`*` would
  // include escalate and bind).
  await grantManager('rbac-writer', 'create,get,list,update,patch,delete', 'roles,rolebindings');
  await grantManager('pod-reader', 'get,list', 'pods');
  sa = (await serviceAccountKubectl(server, admin, 'manager', NS)).kubectl;
  await until('the bindings to take effect', async () => (await canI(['create', 'roles'])) === 'yes');
});

after(async () => {
  await sa?.close();
  await admin?.close();
  await server?.stop();
});

test('a Role with only rules the user holds is created; one with more is 403 naming what is missing', async () => {
  await sa.ok(['create', 'role', 'reader-copy', '-n', NS, '--verb=get', '--resource=pods']);
  const err = await sa.fails(['create', 'role', 'pod-admin', '-n', NS, '--verb=get,delete', '--resource=pods,secrets']);
  assert.match(
    err,
    /roles\.rbac\.authorization\.k8s\.io "pod-admin" is forbidden: user "system:serviceaccount:team:manager" \(groups=\["system:serviceaccounts" "system:serviceaccounts:team" "system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:/,
  );
  assert.match(err, /\{APIGroups:\[""\], Resources:\["pods"\], Verbs:\["delete"\]\}/);
  assert.match(err, /\{APIGroups:\[""\], Resources:\["secrets"\], Verbs:\["get" "delete"\]\}/);
  // Updating a held Role to grant more is refused the same way.
  const role = await sa.getJSON(['role', 'reader-copy', '-n', NS]);
  role.rules[0].verbs = ['get', 'delete'];
  assert.match(await sa.fails(['replace', '-f', '-'], { input: JSON.stringify(role) }), /not currently held/);
  await admin.fails(['get', 'role', 'pod-admin', '-n', NS]);
});

// (edit and admin would not do here: without the aggregation controller they have no rules, and granting nothing is
// no escalation.)
test('binding a role the user does not hold is 403; a held one, or one they may `bind`, is allowed', async () => {
  await sa.ok(['create', 'rolebinding', 'copy', '-n', NS, '--role=pod-reader', `--user=jane`]);
  const bindEditors = [
    'create',
    'rolebinding',
    'editors',
    '-n',
    NS,
    '--clusterrole=system:aggregate-to-edit',
    '--user=jane',
  ];
  assert.match(
    await sa.fails(bindEditors),
    new RegExp(
      `rolebindings\\.rbac\\.authorization\\.k8s\\.io "editors" is forbidden: user "${SA_USER}" .*is attempting to grant RBAC permissions not currently held:`,
    ),
  );
  assert.match(
    await sa.fails(['create', 'rolebinding', 'ghost', '-n', NS, '--role=no-such-role', '--user=jane']),
    /rolebindings\.rbac\.authorization\.k8s\.io "ghost" is forbidden: roles\.rbac\.authorization\.k8s\.io "no-such-role" not found/,
  );
  await grantManager('bind-edit', 'bind', 'clusterroles.rbac.authorization.k8s.io', 'system:aggregate-to-edit');
  await until('bind on system:aggregate-to-edit to take effect', async () => (await sa.run(bindEditors)).code === 0);
  assert.match(
    await sa.fails(['create', 'rolebinding', 'admins', '-n', NS, '--clusterrole=cluster-admin', '--user=jane']),
    /not currently held/,
    'bind is for system:aggregate-to-edit only',
  );
});

test('`escalate` on roles lets a user write any Role; system:masters may always', async () => {
  await grantManager('escalator', 'escalate', 'roles.rbac.authorization.k8s.io');
  await until(
    'escalate to take effect',
    async () =>
      (await sa.run(['create', 'role', 'pod-admin', '-n', NS, '--verb=get,delete', '--resource=pods,secrets'])).code ===
      0,
  );
  await admin.ok(['create', 'clusterrole', 'anything', '--verb=*', '--resource=*.*']);
  await admin.ok(['create', 'clusterrolebinding', 'anything-jane', '--clusterrole=anything', '--user=jane']);
});

test('an aggregated ClusterRole needs cluster-admin or escalate', async () => {
  await admin.ok([
    'create',
    'clusterrole',
    'rbac-cluster-writer',
    '--verb=create',
    '--resource=clusterroles.rbac.authorization.k8s.io',
  ]);
  await admin.ok([
    'create',
    'clusterrolebinding',
    'manager-cluster-writer',
    '--clusterrole=rbac-cluster-writer',
    `--serviceaccount=${NS}:manager`,
  ]);
  await until('the binding to take effect', async () => (await canI(['create', 'clusterroles'])) === 'yes');
  assert.match(
    await sa.fails(['create', 'clusterrole', 'agg', '--aggregation-rule=team=agg']),
    /clusterroles\.rbac\.authorization\.k8s\.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule/,
  );
});
