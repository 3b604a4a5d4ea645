/**
 * CertificateSigningRequest helpers shared by validation, the admission
 * plugins and the csr controllers, like k8s.io/client-go/util/certificate/csr
 * and pkg/apis/certificates/helpers.go: the PEM request parsed with
 * @peculiar/x509, and the approval state read from the conditions.
 */
import 'reflect-metadata'; // @peculiar/x509's dependency injection needs the Reflect polyfill loaded first.
import * as x509 from '@peculiar/x509';
import { CSR_APPROVED, CSR_DENIED, CSR_FAILED, type CertificateSigningRequest } from './types/index.js';

/** What a parsed PKCS#10 request asks for. */
export interface ParsedCSR {
  commonName: string;
  organizations: string[];
  dnsNames: string[];
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
  /** The public key's algorithm name as WebCrypto gives it (ECDSA, RSASSA-PKCS1-v1_5, Ed25519...). */
  keyAlgorithm: string;
  /** The raw request, to sign from. */
  request: x509.Pkcs10CertificateRequest;
}

/** Parses `spec.request` (base64 of a PEM "CERTIFICATE REQUEST" block); throws an Error naming what is wrong. */
export function parseCSR(requestB64: string): ParsedCSR {
  const pem = Buffer.from(requestB64, 'base64').toString('utf8');
  const m = /-----BEGIN ([A-Z ]+)-----([\s\S]*?)-----END \1-----/.exec(pem);
  if (m === null) throw new Error('PEM block type must be CERTIFICATE REQUEST');
  if (m[1] !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  let req: x509.Pkcs10CertificateRequest;
  try {
    req = new x509.Pkcs10CertificateRequest(m[0]);
  } catch (err) {
    throw new Error(`asn1: structure error: ${(err as Error).message}`, { cause: err });
  }
  const attr = (type: string): string[] => req.subjectName.getField(type);
  const ext = req.getExtension('2.5.29.17');
  const san =
    ext === null
      ? undefined
      : ext instanceof x509.SubjectAlternativeNameExtension
        ? ext
        : new x509.SubjectAlternativeNameExtension(ext.rawData);
  const names = (t: string): string[] => (san?.names.items ?? []).filter((n) => n.type === t).map((n) => n.value);
  return {
    commonName: attr('CN')[0] ?? '',
    organizations: attr('O'),
    dnsNames: names('dns'),
    ipAddresses: names('ip'),
    emailAddresses: names('email'),
    uris: names('url'),
    keyAlgorithm: req.publicKey.algorithm.name,
    request: req,
  };
}

/** Whether the request's signature verifies with its own public key. */
export async function csrSignatureValid(csr: ParsedCSR): Promise<boolean> {
  try {
    return await csr.request.verify();
  } catch {
    return false;
  }
}

function hasCondition(csr: CertificateSigningRequest, type: string): boolean {
  return (csr.status?.conditions ?? []).some((c) => c.type === type && c.status !== 'False');
}

/** Approved and not denied (upstream's IsCertificateRequestApproved). */
export function isCSRApproved(csr: CertificateSigningRequest): boolean {
  return hasCondition(csr, CSR_APPROVED) && !hasCondition(csr, CSR_DENIED);
}

/** Denied. */
export function isCSRDenied(csr: CertificateSigningRequest): boolean {
  return hasCondition(csr, CSR_DENIED);
}

/** Failed (the signer gave up). */
export function hasCSRFailed(csr: CertificateSigningRequest): boolean {
  return hasCondition(csr, CSR_FAILED);
}
