/**
 * The Node authorizer and NodeRestriction on the secure port (the default --authorization-mode=Node,RBAC),
 * with real node client certificates (`system:node:<name>` in system:nodes, signed by the server's client
 * CA), client-node 1.4.0 and the real kubectl: a node reads only what its pods reference, its own Node
 * and its own pods, and writes only its own Node status and Lease.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinationV1Api, CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { issueCert } from '../../src/apiserver/pki/certs.js';
import { kubectlPath, startServer, type TestServer } from './harness.js';
import { Kubectl } from './fixtures/kubectl/cli.js';

/** A kubeconfig beside the server's with its CA and a fresh client certificate for node `name`. */
async function nodeKubeconfig(server: TestServer, name: string): Promise<string> {
  const tls = join(server.dir, 'data', 'tls');
  const ca = {
    certPEM: readFileSync(join(tls, 'client-ca.crt'), 'utf8'),
    keyPEM: readFileSync(join(tls, 'client-ca.key'), 'utf8'),
  };
  const pair = await issueCert(ca, {
    commonName: `system:node:${name}`,
    organizations: ['system:nodes'],
    usages: ['client'],
    validityDays: 1,
  });
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  const text = readFileSync(server.kubeconfig, 'utf8')
    .replace(/ {4}client-certificate-data: .*\n/, `    client-certificate-data: ${b64(pair.certPEM)}\n`)
    .replace(/ {4}client-key-data: .*\n/, `    client-key-data: ${b64(pair.keyPEM)}\n`);
  const file = join(server.dir, `${name}.kubeconfig`);
  writeFileSync(file, text, { mode: 0o600 });
  return file;
}

function clients(kubeconfig: string): { core: CoreV1Api; coord: CoordinationV1Api } {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  return { core: kc.makeApiClient(CoreV1Api), coord: kc.makeApiClient(CoordinationV1Api) };
}

/** The HTTP status and Status message a client-node call fails with (or 200 when it succeeds). */
async function outcome(call: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await call;
    return { code: 200, message: '' };
  } catch (err) {
    const e = err as { code?: number; body?: unknown };
    const body = typeof e.body === 'string' ? (JSON.parse(e.body) as { message?: string }) : undefined;
    return { code: e.code ?? 0, message: body?.message ?? String(err) };
  }
}

/** Polls until `fn` holds: the graph learns of a binding from the server's pod informer. */
async function eventually(what: string, fn: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const statusPatch = {
  status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ok' }] },
};

describe('the Node authorizer and NodeRestriction (--authorization-mode=Node,RBAC)', () => {
  let server: TestServer;
  let admin: ReturnType<typeof clients>;
  let n1: ReturnType<typeof clients>;
  let n1kubectl: Kubectl;

  before(async () => {
    server = await startServer(['--secure-port', '0']);
    admin = clients(server.kubeconfig);
    const n1config = await nodeKubeconfig(server, 'n1');
    n1 = clients(n1config);
    n1kubectl = new Kubectl(kubectlPath(), n1config);
    for (const name of ['n1', 'n2']) await admin.core.createNode({ body: { metadata: { name } } });
  });

  /** Creates `<prefix>-n1` and `<prefix>-n2`, bound to those nodes, with `spec` added to each. */
  async function podsOnBothNodes(prefix: string, spec: (name: string) => Record<string, unknown> = () => ({})) {
    for (const nodeName of ['n1', 'n2']) {
      const name = `${prefix}-${nodeName}`;
      await admin.core.createNamespacedPod({
        namespace: 'default',
        body: { metadata: { name }, spec: { nodeName, containers: [{ name: 'c', image: 'i' }], ...spec(name) } },
      });
    }
  }

  after(async () => {
    await n1kubectl?.close();
    await server?.stop();
  });

  test("the system:node ClusterRole holds upstream's node rules and is bound to no one", async () => {
    const admin = new Kubectl(kubectlPath(), server.kubeconfig);
    try {
      const role = await admin.getJSON(['clusterrole', 'system:node']);
      assert.ok(
        role.rules.some(
          (r: { resources: string[]; verbs: string[] }) =>
            r.resources.includes('serviceaccounts/token') && r.verbs.includes('create'),
        ),
      );
      assert.equal(role.metadata.annotations['rbac.authorization.kubernetes.io/autoupdate'], 'true');
      assert.match(await admin.fails(['get', 'clusterrolebinding', 'system:node']), /NotFound|not found/);
    } finally {
      await admin.close();
    }
  });

  test("a node patches its own Node status, and is refused another node's (403, upstream's text)", async () => {
    const patch = (name: string) => outcome(n1.core.patchNodeStatus({ name, body: statusPatch }, MERGE));
    assert.equal((await patch('n1')).code, 200);
    const other = await patch('n2');
    assert.equal(other.code, 403);
    assert.equal(other.message, 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"');
    assert.match(
      await n1kubectl.fails(['label', 'node', 'n2', 'team=a']),
      /nodes "n2" is forbidden: User "system:node:n1" cannot get resource "nodes" in API group "" at the cluster scope: node 'n1' cannot read 'n2', only its own Node object/,
    );
  });

  test("a node creates and renews its own Lease, never another node's", async () => {
    const lease = (name: string) => ({
      metadata: { name, namespace: 'kube-node-lease' },
      spec: { holderIdentity: name, leaseDurationSeconds: 40 },
    });
    assert.equal(
      (await outcome(n1.coord.createNamespacedLease({ namespace: 'kube-node-lease', body: lease('n1') }))).code,
      200,
    );
    const create = await outcome(n1.coord.createNamespacedLease({ namespace: 'kube-node-lease', body: lease('n2') }));
    assert.equal(create.code, 403);
    assert.equal(
      create.message,
      'leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the same name as the requesting node',
    );
    await admin.coord.createNamespacedLease({ namespace: 'kube-node-lease', body: lease('n2') });
    const renew = await outcome(
      n1.coord.replaceNamespacedLease({ name: 'n2', namespace: 'kube-node-lease', body: lease('n2') }),
    );
    assert.equal(renew.code, 403);
    assert.equal(
      renew.message,
      'leases.coordination.k8s.io "n2" is forbidden: User "system:node:n1" cannot update resource "leases" in API group "coordination.k8s.io" in the namespace "kube-node-lease": can only access node lease with the same name as the requesting node',
    );
    const mine = await n1.coord.readNamespacedLease({ name: 'n1', namespace: 'kube-node-lease' });
    assert.equal(
      (await outcome(n1.coord.replaceNamespacedLease({ name: 'n1', namespace: 'kube-node-lease', body: mine }))).code,
      200,
    );
  });

  test('a node reads a Secret only once a pod that mounts it is bound to the node', async () => {
    await admin.core.createNamespacedSecret({
      namespace: 'default',
      body: { metadata: { name: 'db-password' }, stringData: { p: 'x' } },
    });
    const read = () => outcome(n1.core.readNamespacedSecret({ name: 'db-password', namespace: 'default' }));
    const before = await read();
    assert.equal(before.code, 403);
    assert.equal(
      before.message,
      `secrets "db-password" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in the namespace "default": no relationship found between node 'n1' and this object`,
    );
    assert.match(
      await n1kubectl.fails(['get', 'secret', 'db-password']),
      /no relationship found between node 'n1' and this object/,
    );
    await admin.core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: 'db' },
        spec: {
          containers: [
            {
              name: 'c',
              image: 'i',
              env: [{ name: 'CFG', valueFrom: { configMapKeyRef: { name: 'db-config', key: 'k' } } }],
            },
          ],
          volumes: [{ name: 'pw', secret: { secretName: 'db-password' } }],
        },
      },
    });
    assert.equal((await read()).code, 403, 'not bound yet');
    await admin.core.createNamespacedPodBinding({
      name: 'db',
      namespace: 'default',
      body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'db' }, target: { kind: 'Node', name: 'n1' } },
    });
    await eventually('the binding to reach the graph', async () => (await read()).code === 200);
    // As the kubelet watches what its pods reference: one object, by metadata.name.
    assert.match(
      await n1kubectl.ok(['get', 'secret', '--field-selector', 'metadata.name=db-password', '-o', 'name']),
      /secret\/db-password/,
    );
    assert.match(
      await n1kubectl.fails(['get', 'secrets']),
      /cannot list resource "secrets" in API group "" in the namespace "default": No Object name found/,
    );
    await admin.core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'db-config' }, data: { k: 'v' } },
    });
    assert.equal(
      (await outcome(n1.core.readNamespacedConfigMap({ name: 'db-config', namespace: 'default' }))).code,
      200,
    );
    // Another node's kubelet gets nothing of it.
    const n2 = clients(await nodeKubeconfig(server, 'n2'));
    assert.equal(
      (await outcome(n2.core.readNamespacedSecret({ name: 'db-password', namespace: 'default' }))).code,
      403,
    );
    await admin.core.deleteNamespacedPod({ name: 'db', namespace: 'default', gracePeriodSeconds: 0 });
    await eventually('the deleted pod to leave the graph', async () => (await read()).code === 403);
  });

  test("a node reads its own pods, by name or spec.nodeName, never another node's", async () => {
    await podsOnBothNodes('on');
    await eventually(
      'its pod to reach the graph',
      async () => (await outcome(n1.core.readNamespacedPod({ name: 'on-n1', namespace: 'default' }))).code === 200,
    );
    const theirs = await outcome(n1.core.readNamespacedPod({ name: 'on-n2', namespace: 'default' }));
    assert.equal(theirs.code, 403);
    assert.match(
      theirs.message,
      /pods "on-n2" is forbidden: User "system:node:n1" cannot get resource "pods".*no relationship found/,
    );
    const mine = await n1.core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=n1' });
    assert.deepEqual(
      mine.items.map((p) => p.metadata?.name),
      ['on-n1'],
    );
    assert.match(
      await n1kubectl.fails(['get', 'pods', '-A']),
      /cannot list resource "pods" in API group "" at the cluster scope: can only list\/watch pods with spec.nodeName field selector/,
    );
    const del = await outcome(n1.core.deleteNamespacedPod({ name: 'on-n2', namespace: 'default' }));
    assert.equal(del.code, 403);
    assert.equal(
      del.message,
      'pods "Unknown" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself',
    );
    const status = await outcome(
      n1.core.patchNamespacedPodStatus(
        { name: 'on-n2', namespace: 'default', body: { status: { phase: 'Running' } } },
        MERGE,
      ),
    );
    assert.equal(status.code, 403);
    assert.match(status.message, /can only update pod status for pods with spec.nodeName set to itself/);
  });

  test('a node evicts, and requests ServiceAccount tokens for, only pods bound to it', async () => {
    await podsOnBothNodes('job', (name) => ({ serviceAccountName: `sa-${name}` }));
    for (const name of ['sa-job-n1', 'sa-job-n2'])
      await admin.core.createNamespacedServiceAccount({ namespace: 'default', body: { metadata: { name } } });
    const mine = await admin.core.readNamespacedPod({ name: 'job-n1', namespace: 'default' });
    const theirs = await admin.core.readNamespacedPod({ name: 'job-n2', namespace: 'default' });
    const token = (sa: string, pod: typeof mine) =>
      outcome(
        n1.core.createNamespacedServiceAccountToken({
          name: sa,
          namespace: 'default',
          body: {
            spec: {
              audiences: [],
              boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata!.name, uid: pod.metadata!.uid },
            },
          },
        }),
      );
    await eventually('its pod to reach the graph', async () => (await token('sa-job-n1', mine)).code === 200);
    const other = await token('sa-job-n2', theirs);
    assert.equal(other.code, 403);
    assert.match(other.message, /cannot create resource "serviceaccounts\/token".*no relationship found/);
    const stolen = await token('sa-job-n1', theirs);
    assert.equal(stolen.code, 403, "its own pod's account, bound to a pod of another node");
    assert.match(stolen.message, /node requested token bound to a pod scheduled on a different node/);
    const evict = (name: string) =>
      outcome(
        n1.core.createNamespacedPodEviction({
          name,
          namespace: 'default',
          body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' } },
        }),
      );
    const refused = await evict('job-n2');
    assert.equal(refused.code, 403);
    assert.equal(
      refused.message,
      'pods "job-n2" is forbidden: node n1 can only evict pods with spec.nodeName set to itself',
    );
    assert.equal((await evict('job-n1')).code, 200);
    await admin.core.readNamespacedPod({ name: 'job-n2', namespace: 'default' });
  });
});
