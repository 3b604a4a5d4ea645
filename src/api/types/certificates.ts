/** certificates.k8s.io/v1 CertificateSigningRequest. Upstream's JSON names; `request` and `certificate` are base64 PEM. */
import type { KubeObject } from '../types.js';

/** certificates/v1 CertificateSigningRequestSpec; username, uid, groups and extra are set by the API server. */
export interface CertificateSigningRequestSpec {
  request?: string;
  signerName?: string;
  expirationSeconds?: number;
  usages?: string[];
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** certificates/v1 CertificateSigningRequestCondition: Approved, Denied or Failed. */
export interface CertificateSigningRequestCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

/** certificates/v1 CertificateSigningRequestStatus. */
export interface CertificateSigningRequestStatus {
  conditions?: CertificateSigningRequestCondition[];
  certificate?: string;
}

/** certificates/v1 CertificateSigningRequest: a request for a certificate from a named signer. */
export interface CertificateSigningRequest extends KubeObject {
  spec?: CertificateSigningRequestSpec;
  status?: CertificateSigningRequestStatus;
}

/** The well-known signers (certificates/v1 constants). */
export const KUBE_APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';
/** Signs kubelets' client certificates (system:node:<name> in system:nodes). */
export const KUBE_APISERVER_CLIENT_KUBELET_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
/** Signs kubelets' serving certificates. */
export const KUBELET_SERVING_SIGNER = 'kubernetes.io/kubelet-serving';
/** The pre-v1 signer, refused by the v1 API. */
export const LEGACY_UNKNOWN_SIGNER = 'kubernetes.io/legacy-unknown';

/** The condition types of a CSR. */
export const CSR_APPROVED = 'Approved';
/** A denied request is never signed. */
export const CSR_DENIED = 'Denied';
/** The signer could not sign it. */
export const CSR_FAILED = 'Failed';

/** certificates/v1 KeyUsage values. */
export const KEY_USAGES = [
  'signing',
  'digital signature',
  'content commitment',
  'key encipherment',
  'key agreement',
  'data encipherment',
  'cert sign',
  'crl sign',
  'encipher only',
  'decipher only',
  'any',
  'server auth',
  'client auth',
  'code signing',
  'email protection',
  's/mime',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'timestamping',
  'ocsp signing',
  'microsoft sgc',
  'netscape sgc',
] as const;
