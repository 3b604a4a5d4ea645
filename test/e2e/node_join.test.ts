/**
 * A node joins the way kubeadm nodes do, against a real `kscale server` and
 * `kscale controller-manager` process: with a bootstrap token it sends a
 * kubelet client CSR, csrapproving approves it (nodeclient), csrsigning signs
 * it with the client CA, and the certificate authenticates as
 * system:node:<name>; the node then renews for itself (selfnodeclient).
 * Requests from others are not auto-approved. root-ca-cert-publisher puts
 * kube-root-ca.crt in every namespace, and serviceaccount keeps each one's
 * `default` ServiceAccount.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { kubectlPath, startServer, tokenKubeconfig, type TestServer } from './harness.js';
import { Kubectl, row, until } from './fixtures/kubectl/cli.js';
import { startControllerManagerProcess } from './fixtures/workloads.js';
import { generateKeyAndCSR } from '../../src/client/certificate/index.js';

const KUBELET_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
const BOOTSTRAP_TOKEN = 'abcdef.0123456789abcdef';

/** Creates a kubelet client CSR named `name` for `node` through `k`; returns the new private key. */
async function requestNodeCert(k: Kubectl, name: string, node: string): Promise<string> {
  const { keyPEM, csrPEM } = await generateKeyAndCSR({
    commonName: `system:node:${node}`,
    organizations: ['system:nodes'],
  });
  const csr = {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: {
      request: Buffer.from(csrPEM).toString('base64'),
      signerName: KUBELET_SIGNER,
      usages: ['digital signature', 'client auth'],
    },
  };
  await k.ok(['create', '-f', '-'], { input: JSON.stringify(csr) });
  return keyPEM;
}

/** A kubeconfig beside the server's with its CA and the given client certificate and key. */
function certKubeconfig(server: TestServer, name: string, certPEM: string, keyPEM: string): string {
  const file = join(server.dir, `${name}.kubeconfig`);
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  const text = readFileSync(server.kubeconfig, 'utf8')
    .replace(/( {4}client-certificate-data: ).*\n/, `$1${b64(certPEM)}\n`)
    .replace(/( {4}client-key-data: ).*\n/, `$1${b64(keyPEM)}\n`);
  writeFileSync(file, text, { mode: 0o600 });
  return file;
}

describe('node join through bootstrap tokens and CSRs', () => {
  let server: TestServer;
  let cm: Awaited<ReturnType<typeof startControllerManagerProcess>>;
  let admin: Kubectl;
  let joiner: Kubectl;
  let carol: Kubectl;
  const kubectls: Kubectl[] = [];

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kscale-e2e-'));
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, 'carol-token,carol,carol-uid,builders\n');
    server = await startServer(
      ['--secure-port', '0', '--enable-bootstrap-token-auth', '--token-auth-file', tokens],
      dir,
    );
    admin = new Kubectl(kubectlPath(), server.kubeconfig);
    kubectls.push(admin);
    const tls = join(server.dir, 'data', 'tls');
    cm = await startControllerManagerProcess(server.kubeconfig, [
      '--controllers',
      'csrapproving,csrsigning,root-ca-cert-publisher,serviceaccount',
      '--cluster-signing-cert-file',
      join(tls, 'client-ca.crt'),
      '--cluster-signing-key-file',
      join(tls, 'client-ca.key'),
    ]);
    const token = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'bootstrap-token-abcdef', namespace: 'kube-system' },
      type: 'bootstrap.kubernetes.io/token',
      stringData: {
        'token-id': 'abcdef',
        'token-secret': '0123456789abcdef',
        'usage-bootstrap-authentication': 'true',
        'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token',
      },
    };
    await admin.ok(['create', '-f', '-'], { input: JSON.stringify(token) });
    // carol may create CSRs (as a bootstrapper may) but is no bootstrapper.
    await admin.ok([
      'create',
      'clusterrolebinding',
      'carol-csrs',
      '--clusterrole=system:node-bootstrapper',
      '--group=builders',
    ]);
    joiner = new Kubectl(kubectlPath(), tokenKubeconfig(server, BOOTSTRAP_TOKEN, 'joiner'));
    carol = new Kubectl(kubectlPath(), tokenKubeconfig(server, 'carol-token', 'carol'));
    kubectls.push(joiner, carol);
    await until('the bootstrap token authenticates', async () => (await joiner.run(['auth', 'whoami'])).code === 0);
  });

  after(async () => {
    await cm?.stop();
    for (const k of kubectls) await k.close();
    await server?.stop();
  });

  const issued = async (name: string): Promise<string> => {
    let cert = '';
    await until(
      `csr ${name} issued`,
      async () => {
        cert = (await admin.getJSON(['csr', name])).status?.certificate ?? '';
        return cert !== '';
      },
      20_000,
    );
    return Buffer.from(cert, 'base64').toString('utf8');
  };

  test('a bootstrap token CSR is approved and signed, and the certificate is system:node:<name> in system:nodes', async () => {
    await carol.ok(['create', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'certificates.k8s.io/v1',
        kind: 'CertificateSigningRequest',
        metadata: { name: 'from-carol' },
        spec: {
          request: Buffer.from(
            (await generateKeyAndCSR({ commonName: 'system:node:n9', organizations: ['system:nodes'] })).csrPEM,
          ).toString('base64'),
          signerName: KUBELET_SIGNER,
          usages: ['digital signature', 'client auth'],
        },
      }),
    });
    const key = await requestNodeCert(joiner, 'node-n1', 'n1');
    const certPEM = await issued('node-n1');
    const csr = await admin.getJSON(['csr', 'node-n1']);
    assert.equal(csr.spec.username, 'system:bootstrap:abcdef');
    assert.equal(csr.status.conditions[0].reason, 'AutoApproved');
    assert.match(csr.status.conditions[0].message, /Auto approving kubelet client certificate/);
    assert.equal(row(await admin.ok(['get', 'csr']), 'node-n1').CONDITION, 'Approved,Issued');
    const node = new Kubectl(kubectlPath(), certKubeconfig(server, 'n1', certPEM, key));
    kubectls.push(node);
    const who = JSON.parse(await node.ok(['auth', 'whoami', '-o', 'json']));
    assert.equal(who.status.userInfo.username, 'system:node:n1');
    assert.deepEqual(who.status.userInfo.groups, ['system:nodes', 'system:authenticated']);
    // Handled in order before node-n1: a CSR from a non-bootstrapper stays pending.
    for (let i = 0; i < 5; i++) {
      assert.equal(row(await admin.ok(['get', 'csr']), 'from-carol').CONDITION, 'Pending');
      await new Promise((r) => setTimeout(r, 200));
    }
  });

  test('a node renews its own certificate (selfnodeclient), but is not approved for another node', async () => {
    const key = await requestNodeCert(joiner, 'node-n2', 'n2');
    const n2 = new Kubectl(kubectlPath(), certKubeconfig(server, 'n2', await issued('node-n2'), key));
    kubectls.push(n2);
    // The Node authorizer (--authorization-mode Node,RBAC) lets a node create and read CSRs.
    await n2.ok(['get', 'csr']);
    await requestNodeCert(n2, 'n2-for-n3', 'n3');
    const renewKey = await requestNodeCert(n2, 'n2-renewal', 'n2');
    const renewed = await issued('n2-renewal');
    const csr = await admin.getJSON(['csr', 'n2-renewal']);
    assert.equal(csr.spec.username, 'system:node:n2');
    assert.match(csr.status.conditions[0].message, /Auto approving self kubelet client certificate/);
    const again = new Kubectl(kubectlPath(), certKubeconfig(server, 'n2b', renewed, renewKey));
    kubectls.push(again);
    assert.match(await again.ok(['auth', 'whoami']), /system:node:n2/);
    assert.equal(row(await admin.ok(['get', 'csr']), 'n2-for-n3').CONDITION, 'Pending');
  });

  test('csrsigning marks a kubelet CSR that is not a node client certificate Failed', async () => {
    const { csrPEM } = await generateKeyAndCSR({ commonName: 'alice', organizations: ['dev'] });
    const csr = {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'not-a-node' },
      spec: { request: Buffer.from(csrPEM).toString('base64'), signerName: KUBELET_SIGNER, usages: ['client auth'] },
    };
    await admin.ok(['create', '-f', '-'], { input: JSON.stringify(csr) });
    await admin.ok(['certificate', 'approve', 'not-a-node']);
    await until(
      'not-a-node failed',
      async () => row(await admin.ok(['get', 'csr']), 'not-a-node').CONDITION === 'Approved,Failed',
    );
    const failed = await admin.getJSON(['csr', 'not-a-node']);
    assert.equal(failed.status.certificate, undefined);
    assert.equal(failed.status.conditions[1].reason, 'SignerValidationFailure');
  });

  test('a kube-apiserver-client CSR approved by hand is signed for its subject', async () => {
    const { keyPEM, csrPEM } = await generateKeyAndCSR({ commonName: 'dora', organizations: ['dev'] });
    const csr = {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'dora' },
      spec: {
        request: Buffer.from(csrPEM).toString('base64'),
        signerName: 'kubernetes.io/kube-apiserver-client',
        usages: ['digital signature', 'client auth'],
        expirationSeconds: 3600,
      },
    };
    await admin.ok(['create', '-f', '-'], { input: JSON.stringify(csr) });
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(
      row(await admin.ok(['get', 'csr']), 'dora').CONDITION,
      'Pending',
      'not a kubelet CSR: no auto-approval',
    );
    await admin.ok(['certificate', 'approve', 'dora']);
    const dora = new Kubectl(kubectlPath(), certKubeconfig(server, 'dora', await issued('dora'), keyPEM));
    kubectls.push(dora);
    const who = JSON.parse(await dora.ok(['auth', 'whoami', '-o', 'json']));
    assert.deepEqual(who.status.userInfo, { username: 'dora', groups: ['dev', 'system:authenticated'] });
  });

  test('root-ca-cert-publisher puts kube-root-ca.crt in every namespace and puts it back', async () => {
    const ca = readFileSync(join(server.dir, 'data', 'tls', 'server-ca.crt'), 'utf8');
    await until(
      'default has kube-root-ca.crt',
      async () => (await admin.run(['get', 'cm', 'kube-root-ca.crt'])).code === 0,
    );
    assert.equal((await admin.getJSON(['cm', 'kube-root-ca.crt'])).data['ca.crt'], ca);
    await admin.ok(['create', 'namespace', 'fresh']);
    await until(
      'fresh has it',
      async () => (await admin.run(['get', 'cm', '-n', 'fresh', 'kube-root-ca.crt'])).code === 0,
    );
    await admin.ok(['delete', 'cm', '-n', 'fresh', 'kube-root-ca.crt']);
    await until(
      'it comes back',
      async () => (await admin.run(['get', 'cm', '-n', 'fresh', 'kube-root-ca.crt'])).code === 0,
    );
    assert.equal((await admin.getJSON(['cm', '-n', 'fresh', 'kube-root-ca.crt'])).data['ca.crt'], ca);
  });

  test('the serviceaccount controller puts a deleted default ServiceAccount back', async () => {
    await admin.ok(['create', 'namespace', 'sa-ns']);
    await until(
      'sa-ns has its default ServiceAccount',
      async () => (await admin.run(['get', 'sa', '-n', 'sa-ns', 'default'])).code === 0,
    );
    const first = (await admin.getJSON(['sa', '-n', 'sa-ns', 'default'])).metadata.uid;
    await admin.ok(['delete', 'sa', '-n', 'sa-ns', 'default']);
    await until('it comes back', async () => {
      const r = await admin.run(['get', 'sa', '-n', 'sa-ns', 'default', '-o', 'jsonpath={.metadata.uid}']);
      return r.code === 0 && r.stdout !== first;
    });
  });
});
