/**
 * The review resources with the real kubectl, as upstream's test/cmd/authorization.sh and
 * auth_whoami.sh use them: `kubectl auth can-i --list` (SelfSubjectRulesReview), `can-i --as`,
 * SubjectAccessReview and LocalSubjectAccessReview created from manifests, a TokenReview of a
 * ServiceAccount token, and discovery listing them all as create-only.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlPath, startServer, type TestServer } from './harness.js';
import { serviceAccountKubectl } from './fixtures/serviceaccount.js';
import { Kubectl, until, type Doc } from './fixtures/kubectl/cli.js';

let server: TestServer;
let admin: Kubectl;
let sa: Kubectl;
let token: string;

const create = async (k: Kubectl, obj: unknown): Promise<Doc> =>
  JSON.parse(await k.ok(['create', '-f', '-', '-o', 'json'], { input: JSON.stringify(obj) }));
const AUTHZ = 'authorization.k8s.io/v1';

before(async () => {
  server = await startServer(['--secure-port', '0']);
  admin = new Kubectl(kubectlPath(), server.kubeconfig);
  ({ kubectl: sa, token } = await serviceAccountKubectl(server, admin, 'viewer'));
  await admin.ok(['create', 'role', 'cm-reader', '--verb=get,list', '--resource=configmaps', '--resource-name=app']);
  await admin.ok(['create', 'rolebinding', 'viewer-cm', '--role=cm-reader', '--serviceaccount=default:viewer']);
});

after(async () => {
  await sa?.close();
  await admin?.close();
  await server?.stop();
});

test('discovery lists the reviews as create-only', async () => {
  const out = await admin.ok(['api-resources', '--api-group=authorization.k8s.io', '-o', 'wide']);
  for (const r of [
    'localsubjectaccessreviews',
    'selfsubjectaccessreviews',
    'selfsubjectrulesreviews',
    'subjectaccessreviews',
  ])
    assert.match(out, new RegExp(`^${r}\\s+.*\\s(\\[create\\]|create)\\s*$`, 'm'));
  assert.match(
    await admin.ok(['api-resources', '--api-group=authentication.k8s.io', '-o', 'name']),
    /^tokenreviews\.authentication\.k8s\.io$/m,
  );
});

test('kubectl auth can-i --list shows the rules held in the namespace', async () => {
  await until('the binding to take effect', async () =>
    /configmaps\s+\[\]\s+\[app\]\s+\[get list\]/.test((await sa.run(['auth', 'can-i', '--list'])).stdout),
  );
  const list = await sa.ok(['auth', 'can-i', '--list']);
  assert.match(list, /selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]/);
  assert.match(list, /\s+\[\/api\/\*\]\s+\[\]\s+\[get\]/, 'system:discovery');
  assert.doesNotMatch(await sa.ok(['auth', 'can-i', '--list', '-n', 'kube-system']), /configmaps/);
  assert.match(await admin.ok(['auth', 'can-i', '--list']), /\*\.\*\s+\[\]\s+\[\]\s+\[\*\]/);
});

test('kubectl auth can-i --as asks for another user', async () => {
  const sau = 'system:serviceaccount:default:viewer';
  assert.equal((await admin.run(['auth', 'can-i', 'get', 'configmap/app', `--as=${sau}`])).stdout.trim(), 'yes');
  const no = await admin.run(['auth', 'can-i', 'get', 'configmap/other', `--as=${sau}`]);
  assert.equal(no.stdout.trim(), 'no');
  assert.equal(no.code, 1);
  assert.equal((await admin.run(['auth', 'can-i', 'delete', 'nodes', '--as=jane'])).stdout.trim(), 'no');
  assert.equal(
    (await admin.run(['auth', 'can-i', 'delete', 'nodes', '--as=jane', '--as-group=system:masters'])).stdout.trim(),
    'yes',
  );
});

test('SubjectAccessReview and LocalSubjectAccessReview answer for the user in the spec; bad specs are 422', async () => {
  const sar = await create(admin, {
    apiVersion: AUTHZ,
    kind: 'SubjectAccessReview',
    spec: {
      user: 'system:serviceaccount:default:viewer',
      groups: ['system:serviceaccounts', 'system:authenticated'],
      resourceAttributes: { namespace: 'default', verb: 'get', resource: 'configmaps', name: 'app' },
    },
  });
  assert.equal(sar.status.allowed, true);
  assert.match(sar.status.reason, /RoleBinding "viewer-cm"/);
  const urls = await create(admin, {
    apiVersion: AUTHZ,
    kind: 'SubjectAccessReview',
    spec: {
      user: 'nobody',
      groups: ['system:authenticated'],
      nonResourceAttributes: { path: '/metrics', verb: 'get' },
    },
  });
  assert.equal(urls.status.allowed, false);
  const local = await create(admin, {
    apiVersion: AUTHZ,
    kind: 'LocalSubjectAccessReview',
    metadata: { namespace: 'default' },
    spec: { user: 'jane', resourceAttributes: { namespace: 'default', verb: 'list', resource: 'pods' } },
  });
  assert.equal(local.metadata.namespace, 'default');
  assert.equal(local.status.allowed, false);
  assert.match(
    await admin.fails(['create', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: AUTHZ,
        kind: 'SubjectAccessReview',
        spec: { resourceAttributes: { verb: 'get' } },
      }),
    }),
    /The SubjectAccessReview "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified/,
  );
  assert.match(
    await admin.fails(['create', '-n', 'default', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: AUTHZ,
        kind: 'LocalSubjectAccessReview',
        spec: { user: 'jane', resourceAttributes: { namespace: 'kube-system', verb: 'get', resource: 'pods' } },
      }),
    }),
    /spec.resourceAttributes.namespace: Invalid value: "kube-system": must match metadata.namespace/,
  );
  assert.match(
    await sa.fails(['create', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: AUTHZ,
        kind: 'SubjectAccessReview',
        spec: { user: 'x', nonResourceAttributes: { path: '/' } },
      }),
    }),
    /subjectaccessreviews.authorization.k8s.io is forbidden: User "system:serviceaccount:default:viewer" cannot create resource "subjectaccessreviews"/,
    'SubjectAccessReview is for system:auth-delegator and the like',
  );
});

test('a TokenReview verifies a ServiceAccount token through the authenticators; a forged one is not authenticated', async () => {
  const tr = (t: string): unknown => ({
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenReview',
    spec: { token: t },
  });
  const good = await create(admin, tr(token));
  assert.equal(good.status.authenticated, true);
  assert.equal(good.status.user.username, 'system:serviceaccount:default:viewer');
  assert.ok(good.status.user.groups.includes('system:serviceaccounts:default'));
  assert.ok(good.status.user.uid.length > 0);
  const forged = await create(admin, tr(`${token.slice(0, -4)}AAAA`));
  assert.equal(forged.status.authenticated, false);
  assert.match(
    await admin.fails(['create', '-f', '-'], { input: JSON.stringify(tr('')) }),
    /token is required for TokenReview/,
  );
});
