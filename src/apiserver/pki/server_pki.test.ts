import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueCert } from './certs.js';
import { loadOrCreateComponentCert, loadOrCreateServerPKI } from './server_pki.js';

test('the server PKI is generated once, private, and reused; a new SAN reissues only the serving certificate', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'kscale-pki-')), 'tls');
  try {
    const first = await loadOrCreateServerPKI(dir, ['10.96.0.1']);
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    for (const f of ['server-ca', 'client-ca', 'serving-kube-apiserver', 'client-admin', 'client-super-admin']) {
      for (const ext of ['crt', 'key'])
        assert.equal(statSync(join(dir, `${f}.${ext}`)).mode & 0o777, 0o600, `${f}.${ext}`);
    }
    const serving = new X509Certificate(first.serving.certPEM);
    const serverCA = new X509Certificate(first.serverCA.certPEM);
    assert.ok(serving.verify(serverCA.publicKey), 'the serving certificate is signed by the server CA');
    assert.ok(serving.checkHost('kubernetes.default.svc.cluster.local'));
    assert.ok(serving.checkIP('127.0.0.1'));
    assert.ok(serving.checkIP('10.96.0.1'));
    const admin = new X509Certificate(first.admin.certPEM);
    assert.ok(
      admin.verify(new X509Certificate(first.clientCA.certPEM).publicKey),
      'the admin certificate is signed by the client CA',
    );
    assert.match(admin.subject, /CN=kubernetes-admin/);
    assert.match(admin.subject, /O=kubeadm:cluster-admins/, 'the everyday admin is in an RBAC-bound group');
    assert.doesNotMatch(admin.subject, /system:masters/);
    assert.equal(admin.keyUsage?.includes('1.3.6.1.5.5.7.3.2'), true, 'clientAuth');
    const superAdmin = new X509Certificate(first.superAdmin.certPEM);
    assert.match(superAdmin.subject, /CN=kubernetes-super-admin/);
    assert.match(superAdmin.subject, /O=system:masters/, 'the break-glass admin bypasses authorization');

    const again = await loadOrCreateServerPKI(dir, ['10.96.0.1']);
    assert.deepEqual(again, first, 'a restart reuses every file');

    const widened = await loadOrCreateServerPKI(dir, ['10.96.0.1', 'api.example.com']);
    assert.equal(widened.serverCA.certPEM, first.serverCA.certPEM);
    assert.equal(widened.admin.certPEM, first.admin.certPEM);
    assert.notEqual(widened.serving.certPEM, first.serving.certPEM);
    assert.ok(new X509Certificate(widened.serving.certPEM).checkHost('api.example.com'));
    assert.equal(readFileSync(join(dir, 'serving-kube-apiserver.crt'), 'utf8'), widened.serving.certPEM);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an admin certificate from before kubeadm:cluster-admins is reissued; component certificates carry their user', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'kscale-pki-')), 'tls');
  try {
    const first = await loadOrCreateServerPKI(dir, []);
    const old = await issueCert(first.clientCA, {
      commonName: 'system:admin',
      organizations: ['system:masters'],
      usages: ['client'],
      validityDays: 365,
    });
    writeFileSync(join(dir, 'client-admin.crt'), old.certPEM);
    writeFileSync(join(dir, 'client-admin.key'), old.keyPEM);
    const again = await loadOrCreateServerPKI(dir, []);
    assert.match(new X509Certificate(again.admin.certPEM).subject, /O=kubeadm:cluster-admins/);
    const scheduler = await loadOrCreateComponentCert(dir, first.clientCA, 'scheduler');
    assert.equal(new X509Certificate(scheduler.certPEM).subject, 'CN=system:kube-scheduler');
    assert.equal(statSync(join(dir, 'client-kube-scheduler.key')).mode & 0o777, 0o600);
    assert.deepEqual(await loadOrCreateComponentCert(dir, first.clientCA, 'scheduler'), scheduler, 'reused');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
