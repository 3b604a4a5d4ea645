import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CertificateSigningRequest } from '../types/index.js';
import {
  validateCertificateSigningRequest,
  validateCertificateSigningRequestStatusUpdate,
  validateCertificateSigningRequestUpdate,
  validateSignerName,
} from './certificates.js';

// A PKCS#10 request for system:node:n1 in system:nodes (ECDSA P-256), made once with client/certificate.
const CSR_PEM = [
  '-----BEGIN CERTIFICATE REQUEST-----',
  'MIHrMIGSAgEAMDAxFTATBgNVBAoTDHN5c3RlbTpub2RlczEXMBUGA1UEAxMOc3lz',
  'dGVtOm5vZGU6bjEwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAASmjKuvpTXMn0Qi',
  'eydl3OlAHHI01cbXnm3FsjsDVVs+p3pCw7GFMMh9wirCK2qIWY8+d/vOiQ6WTpq1',
  'x5vmxL/noAAwCgYIKoZIzj0EAwIDSAAwRQIgBiFJV6qvGx4Xtw+MgZ8NveXmQfCV',
  '9x7y0jzQHa26/joCIQDGFJ8YkbsEY6g/eCqIvnByjShhRXPZgaFNk4jeJasPuA==',
  '-----END CERTIFICATE REQUEST-----',
].join('\n');

const fields = (errs: { field: string; type: string }[]): string[] => errs.map((e) => `${e.field}:${e.type}`);

function csr(over: Partial<CertificateSigningRequest['spec']> = {}): Promise<CertificateSigningRequest> {
  return Promise.resolve({
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name: 'n1' },
    spec: {
      request: Buffer.from(CSR_PEM).toString('base64'),
      signerName: 'kubernetes.io/kube-apiserver-client-kubelet',
      usages: ['digital signature', 'client auth'],
      ...over,
    },
  });
}

test('a well-formed request from a known or custom signer validates', async () => {
  assert.deepEqual(validateCertificateSigningRequest(await csr()), []);
  assert.deepEqual(validateCertificateSigningRequest(await csr({ signerName: 'example.com/my-signer' })), []);
});

test('request, signer name, usages and expirationSeconds are checked as upstream', async () => {
  const bad = await csr({ usages: ['client auth', 'client auth'], expirationSeconds: 60 });
  bad.spec!.request = Buffer.from('-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n').toString('base64');
  assert.deepEqual(fields(validateCertificateSigningRequest(bad)), [
    'spec.request:FieldValueInvalid',
    'spec.usages[1]:FieldValueDuplicate',
    'spec.expirationSeconds:FieldValueInvalid',
  ]);
  assert.deepEqual(fields(validateCertificateSigningRequest(await csr({ usages: [] }))), [
    'spec.usages:FieldValueRequired',
  ]);
  assert.deepEqual(fields(validateSignerName('s', '')), ['s:FieldValueRequired']);
  assert.deepEqual(fields(validateSignerName('s', 'no-slash')), ['s:FieldValueInvalid']);
  assert.deepEqual(fields(validateSignerName('s', 'nodots/x')), ['s:FieldValueInvalid']);
  assert.deepEqual(fields(validateSignerName('s', 'kubernetes.io/legacy-unknown')), ['s:FieldValueInvalid']);
});

test('approval conditions: True only, exclusive, never removed, never added through /status', async () => {
  const old = await csr();
  const approved = structuredClone(old);
  approved.status = { conditions: [{ type: 'Approved', status: 'True' }] };
  assert.deepEqual(validateCertificateSigningRequestUpdate(approved, old), []);
  assert.deepEqual(fields(validateCertificateSigningRequestStatusUpdate(approved, old)), [
    'status.conditions:FieldValueForbidden',
  ]);
  assert.deepEqual(fields(validateCertificateSigningRequestUpdate(old, approved)), [
    'status.conditions:FieldValueForbidden',
  ]);
  const both = structuredClone(approved);
  both.status!.conditions!.push({ type: 'Denied', status: 'True' });
  assert.deepEqual(fields(validateCertificateSigningRequestUpdate(both, old)), ['status.conditions:FieldValueInvalid']);
  const falseApproval = structuredClone(old);
  falseApproval.status = { conditions: [{ type: 'Approved', status: 'False' }] };
  assert.deepEqual(fields(validateCertificateSigningRequestUpdate(falseApproval, old)), [
    'status.conditions[0].status:FieldValueNotSupported',
  ]);
});

test('a certificate needs approval, must be PEM certificates, and never changes once issued', async () => {
  const pem = Buffer.from('-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n').toString('base64');
  const old = await csr();
  const issued = structuredClone(old);
  issued.status = { certificate: pem };
  assert.deepEqual(fields(validateCertificateSigningRequestStatusUpdate(issued, old)), [
    'status.certificate:FieldValueInvalid',
  ]);
  old.status = { conditions: [{ type: 'Approved', status: 'True' }] };
  issued.status = { conditions: [{ type: 'Approved', status: 'True' }], certificate: pem };
  assert.deepEqual(validateCertificateSigningRequestStatusUpdate(issued, old), []);
  const changed = structuredClone(issued);
  changed.status!.certificate = Buffer.from('junk').toString('base64');
  assert.deepEqual(fields(validateCertificateSigningRequestStatusUpdate(changed, issued)), [
    'status.certificate:FieldValueInvalid',
  ]);
});
