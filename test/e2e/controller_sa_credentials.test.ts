/**
 * `kscale controller-manager --use-service-account-credentials` over TLS with its own kubeconfig
 * (system:kube-controller-manager): each controller's writes are attributed in the audit log to its own
 * ServiceAccount kube-system/<name>, which RBAC authorizes by its system:controller:<name> role only.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectlPath, startServer, type TestServer } from './harness.js';
import { Kubectl } from './fixtures/kubectl/cli.js';
import { startControllerManagerProcess } from './fixtures/workloads.js';
import { waitFor } from './fixtures/cluster.js';

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
  resources:
  - group: ""
    resources: ["serviceaccounts", "configmaps"]
`;

interface AuditEvent {
  verb: string;
  stage: string;
  annotations?: Record<string, string>;
  user: { username: string };
  objectRef?: { resource?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number };
}

let server: TestServer;
let k: Kubectl;
let cm: Awaited<ReturnType<typeof startControllerManagerProcess>>;
let log: string;

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-e2e-'));
  writeFileSync(join(dir, 'policy.yaml'), POLICY);
  log = join(dir, 'audit.log');
  server = await startServer(
    [
      '--write-component-kubeconfigs',
      join(dir, 'components'),
      '--audit-policy-file',
      join(dir, 'policy.yaml'),
      '--audit-log-path',
      log,
    ],
    dir,
  );
  k = new Kubectl(kubectlPath(), server.kubeconfig);
  cm = await startControllerManagerProcess(join(dir, 'components', 'controller-manager.conf'), [
    '--use-service-account-credentials',
    '--controllers',
    'serviceaccount,root-ca-cert-publisher,deployment,replicaset',
  ]);
});

after(async () => {
  await cm?.stop();
  await k?.close();
  await server?.stop();
});

function events(): AuditEvent[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AuditEvent);
}

// Who got a create of `resource` in `namespace` past authorization (201, or 409 when the server's own bootstrap
// made the object first, as it makes each namespace's `default` ServiceAccount).
function creator(resource: string, namespace: string): string | undefined {
  return events().find(
    (e) =>
      e.verb === 'create' &&
      e.stage === 'ResponseComplete' &&
      e.objectRef?.resource === resource &&
      e.objectRef.namespace === namespace &&
      (e.responseStatus?.code === 201 || e.responseStatus?.code === 409) &&
      e.annotations?.['authorization.k8s.io/decision'] === 'allow',
  )?.user.username;
}

test("each controller's writes are attributed to its own ServiceAccount", async () => {
  await k.ok(['create', 'namespace', 'team-a']);
  await waitFor('the default ServiceAccount and kube-root-ca.crt in team-a', () =>
    Promise.resolve(
      creator('serviceaccounts', 'team-a') !== undefined && creator('configmaps', 'team-a') !== undefined
        ? true
        : undefined,
    ),
  );
  assert.equal(creator('serviceaccounts', 'team-a'), 'system:serviceaccount:kube-system:service-account-controller');
  assert.equal(creator('configmaps', 'team-a'), 'system:serviceaccount:kube-system:root-ca-cert-publisher');
  // The manager created the controllers' ServiceAccounts under its own identity.
  assert.equal(creator('serviceaccounts', 'kube-system'), 'system:kube-controller-manager');
});

test('a controller ServiceAccount holds only its system:controller role', async () => {
  const as = '--as=system:serviceaccount:kube-system:service-account-controller';
  assert.equal((await k.run(['auth', 'can-i', 'create', 'serviceaccounts', '-n', 'team-b', as])).stdout.trim(), 'yes');
  assert.equal((await k.run(['auth', 'can-i', 'create', 'configmaps', '-n', 'team-b', as])).stdout.trim(), 'no');
  assert.equal((await k.run(['auth', 'can-i', 'delete', 'nodes', as])).stdout.trim(), 'no');
});

test('the deployment controller, under its own role (update, not patch), writes the revision and the status', async () => {
  await k.ok(['create', 'deployment', 'web', '--image=nginx', '--replicas=2', '-n', 'default']);
  const d = await waitFor('the Deployment status', async () => {
    const got = JSON.parse(await k.ok(['get', 'deployment', 'web', '-n', 'default', '-o', 'json'])) as {
      metadata: { annotations?: Record<string, string> };
      status?: { observedGeneration?: number; replicas?: number };
    };
    return got.status?.observedGeneration === 1 && got.status.replicas === 2 ? got : undefined;
  });
  assert.equal(d.metadata.annotations?.['deployment.kubernetes.io/revision'], '1');
});
