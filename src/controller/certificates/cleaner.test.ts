import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatTimestamp, type CertificateSigningRequest } from '../../api/index.js';
import { csrCleanupReason } from './cleaner.js';

const H = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);

function csr(status: CertificateSigningRequest['status'] = {}): CertificateSigningRequest {
  return { metadata: { name: 'c', creationTimestamp: formatTimestamp(T0) }, spec: {}, status };
}
const cond = (type: string, at: number) => ({ type, status: 'True', lastUpdateTime: formatTimestamp(at) });
const CERT = Buffer.from('-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n').toString('base64');

test("pending CSRs are kept for a day, denied and failed ones for an hour, as upstream's cleaner", () => {
  assert.equal(csrCleanupReason(csr(), T0 + 23 * H), undefined);
  assert.match(csrCleanupReason(csr(), T0 + 25 * H) ?? '', /pending/);
  assert.equal(csrCleanupReason(csr({ conditions: [cond('Denied', T0)] }), T0 + 0.5 * H), undefined);
  assert.match(csrCleanupReason(csr({ conditions: [cond('Denied', T0)] }), T0 + 2 * H) ?? '', /denied/);
  assert.match(
    csrCleanupReason(csr({ conditions: [cond('Approved', T0), cond('Failed', T0)] }), T0 + 2 * H) ?? '',
    /failed/,
  );
});

test('approved CSRs go an hour after issue; approved but unissued ones are kept', () => {
  const approved = csr({ conditions: [cond('Approved', T0)] });
  assert.equal(csrCleanupReason(approved, T0 + 30 * H), undefined, 'not issued yet, not pending');
  const issued = csr({ conditions: [cond('Approved', T0)], certificate: CERT });
  assert.equal(csrCleanupReason(issued, T0 + 0.5 * H), undefined);
  assert.match(csrCleanupReason(issued, T0 + 2 * H) ?? '', /approved and issued/);
});
