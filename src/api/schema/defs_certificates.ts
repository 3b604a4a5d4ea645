/** certificates.k8s.io/v1 definitions: CertificateSigningRequest. Lists are atomic, conditions keyed by type, as upstream. */
import type { StructDesc } from './dsl.js';

/** certificates/v1 definitions by short name. */
export const CERTIFICATES_DEFS: Record<string, StructDesc> = {
  'certificates.CertificateSigningRequestSpec': {
    request: 'bytes',
    signerName: 'string',
    expirationSeconds: 'int',
    usages: '[]string',
    username: 'string',
    uid: 'string',
    groups: '[]string',
    extra: 'map[[]string]',
  },
  'certificates.CertificateSigningRequestCondition': {
    type: 'string',
    status: 'string',
    reason: 'string',
    message: 'string',
    lastUpdateTime: 'Time',
    lastTransitionTime: 'Time',
  },
  'certificates.CertificateSigningRequestStatus': {
    conditions: '[]certificates.CertificateSigningRequestCondition@type',
    certificate: 'bytes',
  },
  'certificates.CertificateSigningRequest': {
    apiVersion: 'string',
    kind: 'string',
    metadata: 'meta.ObjectMeta',
    spec: 'certificates.CertificateSigningRequestSpec',
    status: 'certificates.CertificateSigningRequestStatus',
  },
};
