/**
 * certificates.k8s.io/v1 CertificateSigningRequests on the secure port, with
 * the real kubectl (1.27 and 1.33): the server records the requester,
 * `kubectl get csr` shows upstream's columns, `kubectl certificate
 * approve|deny` write /approval, malformed requests are 422, and /status may
 * not approve.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { kubectlPath, startServer, tokenKubeconfig, versionedKubectl, type TestServer } from './harness.js';
import { header, Kubectl, row, until } from './fixtures/kubectl/cli.js';
import { generateKeyAndCSR } from '../../src/client/certificate/index.js';
import { isInvalidError, loadKubeconfig, RESOURCES, RESTClient } from '../../src/client/index.js';
import type { CertificateSigningRequest } from '../../src/api/index.js';

/** A CSR manifest for `commonName` in `organizations`, from a fresh ECDSA P-256 key. */
export async function csrManifest(
  name: string,
  signerName: string,
  commonName: string,
  organizations: string[],
  usages = ['digital signature', 'client auth'],
): Promise<string> {
  const { csrPEM } = await generateKeyAndCSR({ commonName, organizations });
  return JSON.stringify({
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: Buffer.from(csrPEM).toString('base64'), signerName, usages, expirationSeconds: 86400 },
  });
}

const KUBELET_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';

describe('CertificateSigningRequests', () => {
  let server: TestServer;
  let admin: Kubectl;
  let alice: Kubectl;
  let bob: Kubectl;
  let client: RESTClient;

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kscale-e2e-'));
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, 'alice-token,alice,alice-uid,"dev,system:masters"\nbob-token,bob,bob-uid,approvers\n');
    server = await startServer(['--secure-port', '0', '--token-auth-file', tokens], dir);
    admin = new Kubectl(kubectlPath(), server.kubeconfig);
    alice = new Kubectl(kubectlPath(), tokenKubeconfig(server, 'alice-token', 'alice'));
    bob = new Kubectl(kubectlPath(), tokenKubeconfig(server, 'bob-token', 'bob'));
    client = new RESTClient(loadKubeconfig({ path: server.kubeconfig }));
  });

  after(async () => {
    client?.close();
    await alice?.close();
    await bob?.close();
    await admin?.close();
    await server?.stop();
  });

  test('the server records the requester over whatever the body says', async () => {
    const m = JSON.parse(await csrManifest('by-alice', KUBELET_SIGNER, 'system:node:n1', ['system:nodes']));
    m.spec.username = 'mallory';
    m.spec.groups = ['system:masters'];
    await alice.ok(['create', '-f', '-'], { input: JSON.stringify(m) });
    const csr = await admin.getJSON(['csr', 'by-alice']);
    assert.equal(csr.spec.username, 'alice');
    assert.equal(csr.spec.uid, 'alice-uid');
    assert.deepEqual(csr.spec.groups, ['dev', 'system:masters', 'system:authenticated']);
    assert.deepEqual(csr.status, {});
  });

  for (const minor of [27, 33]) {
    test(`kubectl 1.${minor} get csr, certificate approve and deny`, async () => {
      const k = new Kubectl(versionedKubectl(minor), server.kubeconfig);
      try {
        const a = `approve-${minor}`;
        const d = `deny-${minor}`;
        await k.ok(['create', '-f', '-'], {
          input: await csrManifest(a, KUBELET_SIGNER, 'system:node:a', ['system:nodes']),
        });
        await k.ok(['create', '-f', '-'], {
          input: await csrManifest(d, KUBELET_SIGNER, 'system:node:d', ['system:nodes']),
        });
        const before = await k.ok(['get', 'csr']);
        assert.deepEqual(header(before), ['NAME', 'AGE', 'SIGNERNAME', 'REQUESTOR', 'REQUESTEDDURATION', 'CONDITION']);
        assert.equal(row(before, a).CONDITION, 'Pending');
        assert.equal(row(before, a).REQUESTOR, 'kubernetes-admin');
        assert.equal(row(before, a).REQUESTEDDURATION, '24h');
        assert.match(await k.ok(['certificate', 'approve', a]), /approved/);
        assert.match(await k.ok(['certificate', 'deny', d]), /denied/);
        const after = await k.ok(['get', 'csr']);
        assert.equal(row(after, a).CONDITION, 'Approved');
        assert.equal(row(after, d).CONDITION, 'Denied');
        const approved = await k.getJSON(['csr', a]);
        assert.equal(approved.status.conditions[0].reason, 'KubectlApprove');
        assert.ok(approved.status.conditions[0].lastUpdateTime, 'the server fills the condition times');
      } finally {
        await k.close();
      }
    });
  }

  test('a malformed request, an unknown usage or the legacy signer is 422', async () => {
    const m = JSON.parse(await csrManifest('malformed', KUBELET_SIGNER, 'x', []));
    m.spec.request = Buffer.from('not a certificate request').toString('base64');
    assert.match(
      await admin.fails(['create', '-f', '-'], { input: JSON.stringify(m) }),
      /spec.request: Invalid value: .*PEM block type must be CERTIFICATE REQUEST/,
    );
    const u = JSON.parse(await csrManifest('bad-usage', 'kubernetes.io/legacy-unknown', 'x', [], ['frobnicate']));
    const err = await admin.fails(['create', '-f', '-'], { input: JSON.stringify(u) });
    assert.match(err, /spec.usages\[0\]: Unsupported value: "frobnicate"/);
    assert.match(err, /spec.signerName: Invalid value: "kubernetes.io\/legacy-unknown"/);
    const csrs = client.resource<CertificateSigningRequest>(RESOURCES.certificatesigningrequests);
    await assert.rejects(csrs.create(m), (e: unknown) => isInvalidError(e));
  });

  test('/status may not add an Approved condition, and a certificate needs approval', async () => {
    await admin.ok(['create', '-f', '-'], {
      input: await csrManifest('via-status', KUBELET_SIGNER, 'system:node:s', ['system:nodes']),
    });
    const csrs = client.resource<CertificateSigningRequest>(RESOURCES.certificatesigningrequests);
    const csr = await csrs.get('via-status');
    csr.status = { conditions: [{ type: 'Approved', status: 'True', reason: 'Sneaky' }] };
    const statusWrite = await csrs.updateStatus(csr);
    assert.equal(statusWrite.status?.conditions, undefined, '/status keeps the approval conditions it had (none)');
    csr.status = {
      certificate: Buffer.from('-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n').toString('base64'),
    };
    await assert.rejects(csrs.updateStatus(csr), (e: unknown) => isInvalidError(e));
  });

  test('CertificateSubjectRestriction: a kube-apiserver-client CSR for system:masters is refused', async () => {
    const masters = await csrManifest('masters', 'kubernetes.io/kube-apiserver-client', 'eve', ['system:masters']);
    assert.match(
      await admin.fails(['create', '-f', '-'], { input: masters }),
      /certificatesigningrequests.certificates.k8s.io "masters" is forbidden: use of kubernetes.io\/kube-apiserver-client signer with system:masters group is not allowed/,
    );
    await admin.ok(['create', '-f', '-'], {
      input: await csrManifest('plain-client', 'kubernetes.io/kube-apiserver-client', 'eve', ['dev']),
    });
  });

  test('CertificateApproval: approving needs approve on the signer, not just the /approval subresource', async () => {
    await admin.ok(['create', '-f', '-'], {
      input: await csrManifest('needs-signer', KUBELET_SIGNER, 'system:node:z', ['system:nodes']),
    });
    const approver = (name: string, rules: unknown[]): string =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules },
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRoleBinding',
            metadata: { name },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
            subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'approvers' }],
          },
        ],
      });
    await admin.ok(['create', '-f', '-'], {
      input: approver('csr-approval', [
        { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'], verbs: ['get', 'list'] },
        { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests/approval'], verbs: ['update'] },
      ]),
    });
    let denied = '';
    await until('the approval rules reach the authorizer', async () => {
      const r = await bob.run(['certificate', 'approve', 'needs-signer']);
      denied = r.stderr;
      return /user not permitted to approve requests with signerName/.test(r.stderr);
    });
    assert.match(
      denied,
      /user not permitted to approve requests with signerName "kubernetes.io\/kube-apiserver-client-kubelet"/,
    );
    await admin.ok(['create', '-f', '-'], {
      input: approver('kubelet-signer-approver', [
        {
          apiGroups: ['certificates.k8s.io'],
          resources: ['signers'],
          resourceNames: ['kubernetes.io/*'],
          verbs: ['approve'],
        },
      ]),
    });
    await until(
      'the signer grant reaches the authorizer',
      async () => (await bob.run(['certificate', 'approve', 'needs-signer'])).code === 0,
    );
    assert.equal(row(await admin.ok(['get', 'csr']), 'needs-signer').CONDITION, 'Approved');
  });
});
