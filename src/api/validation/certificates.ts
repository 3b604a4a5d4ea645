/**
 * certificates.k8s.io validation, with upstream's rules and texts
 * (pkg/apis/certificates/validation): the request is a parseable PEM
 * CERTIFICATE REQUEST, the signer name is `domain/path` and not the legacy
 * one, usages are known and unique, and the conditions obey the approval
 * rules: Approved and Denied are True, exclusive, never removed, and only
 * written through /approval; a certificate needs approval and never changes.
 */
import { parseCSR } from '../certificates.js';
import { isDNS1123Subdomain } from '../meta.js';
import {
  CSR_APPROVED,
  CSR_DENIED,
  CSR_FAILED,
  KEY_USAGES,
  LEGACY_UNKNOWN_SIGNER,
  type CertificateSigningRequest,
  type CertificateSigningRequestCondition,
} from '../types/index.js';
import type { KubeObject } from '../types.js';
import { duplicate, forbidden, index, invalidValue, notSupported, required, type ErrorList } from './field.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { validateRBACName } from './rbac.js';

const csrOf = (o: KubeObject): CertificateSigningRequest => o as CertificateSigningRequest;

/** Like ValidateSignerName: `<fully qualified domain>/<path>`, the path a DNS-1123 subdomain-ish segment. */
export function validateSignerName(path: string, name: unknown): ErrorList {
  if (typeof name !== 'string' || name === '') return [required(path, '')];
  if (name === LEGACY_UNKNOWN_SIGNER)
    return [invalidValue(path, name, 'the legacy signerName is not allowed via this API version')];
  const i = name.indexOf('/');
  if (i <= 0 || i === name.length - 1)
    return [
      invalidValue(path, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'"),
    ];
  const domain = name.slice(0, i);
  const errs: ErrorList = [];
  if (!domain.includes('.') || isDNS1123Subdomain(domain).length > 0)
    errs.push(invalidValue(path, name, 'should be a domain with at least two segments separated by dots'));
  if (name.length > 571) errs.push(invalidValue(path, name, 'may not be more than 571 characters'));
  return errs;
}

/** Field errors of a new CertificateSigningRequest. */
export function validateCertificateSigningRequest(o: KubeObject): ErrorList {
  const csr = csrOf(o);
  const errs = validateObjectMeta(csr.metadata, false, validateRBACName);
  const spec = csr.spec ?? {};
  if (typeof spec.request !== 'string' || spec.request === '') {
    errs.push(required('spec.request', ''));
  } else {
    try {
      parseCSR(spec.request);
    } catch (err) {
      errs.push(invalidValue('spec.request', spec.request, (err as Error).message));
    }
  }
  errs.push(...validateSignerName('spec.signerName', spec.signerName));
  const usages = spec.usages ?? [];
  if (usages.length === 0) errs.push(required('spec.usages', 'usages must be provided'));
  const seen = new Set<string>();
  usages.forEach((u, i) => {
    if (!(KEY_USAGES as readonly string[]).includes(u))
      errs.push(notSupported(index('spec.usages', i), u, [...KEY_USAGES]));
    else if (seen.has(u)) errs.push(duplicate(index('spec.usages', i), u));
    seen.add(u);
  });
  if (spec.expirationSeconds !== undefined && spec.expirationSeconds < 600)
    errs.push(
      invalidValue(
        'spec.expirationSeconds',
        spec.expirationSeconds,
        'may not specify a duration less than 600 seconds (10 minutes)',
      ),
    );
  errs.push(...validateConditions(csr.status?.conditions ?? []));
  return errs;
}

function validateConditions(conds: CertificateSigningRequestCondition[]): ErrorList {
  const errs: ErrorList = [];
  const seen = new Set<string>();
  conds.forEach((c, i) => {
    const p = `status.conditions[${i}]`;
    if (!c.type) errs.push(required(`${p}.type`, ''));
    if (c.type === CSR_APPROVED || c.type === CSR_DENIED || c.type === CSR_FAILED) {
      if (seen.has(c.type)) errs.push(duplicate(`${p}.type`, c.type));
      seen.add(c.type);
    }
    if ((c.type === CSR_APPROVED || c.type === CSR_DENIED) && c.status !== 'True')
      errs.push(notSupported(`${p}.status`, c.status, ['True']));
    else if (!['True', 'False', 'Unknown'].includes(c.status))
      errs.push(notSupported(`${p}.status`, c.status, ['True', 'False', 'Unknown']));
  });
  if (seen.has(CSR_APPROVED) && seen.has(CSR_DENIED))
    errs.push(invalidValue('status.conditions', CSR_DENIED, 'Approved and Denied conditions are mutually exclusive'));
  return errs;
}

const types = (csr: CertificateSigningRequest, t: string): number =>
  (csr.status?.conditions ?? []).filter((c) => c.type === t).length;

// What every update checks: metadata, conditions, and a certificate that needs approval and never changes.
function validateUpdateCommon(n: CertificateSigningRequest, old: CertificateSigningRequest): ErrorList {
  const errs = [
    ...validateObjectMetaUpdate(n.metadata, old.metadata),
    ...validateConditions(n.status?.conditions ?? []),
  ];
  for (const t of [CSR_APPROVED, CSR_DENIED])
    if (types(old, t) > 0 && types(n, t) === 0)
      errs.push(forbidden('status.conditions', `updates may not remove a condition of type "${t}"`));
  const cert = n.status?.certificate ?? '';
  const oldCert = old.status?.certificate ?? '';
  if (oldCert !== '' && cert !== oldCert)
    errs.push(
      invalidValue('status.certificate', '<certificate data>', 'updates may not modify existing certificate content'),
    );
  if (cert !== '' && oldCert === '') {
    if (types(n, CSR_APPROVED) === 0 || types(n, CSR_DENIED) > 0)
      errs.push(
        invalidValue(
          'status.certificate',
          '<certificate data>',
          'certificate can only be set if the Approved condition exists and the Denied condition does not',
        ),
      );
    const pem = Buffer.from(cert, 'base64').toString('utf8');
    if (!/^\s*(-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\s*)+$/.test(pem))
      errs.push(
        invalidValue(
          'status.certificate',
          '<certificate data>',
          'must contain at least one CERTIFICATE PEM block and nothing else',
        ),
      );
  }
  return errs;
}

/** Field errors of a main-resource or /approval update (the strategy keeps the spec and the certificate). */
export function validateCertificateSigningRequestUpdate(o: KubeObject, old: KubeObject): ErrorList {
  return validateUpdateCommon(csrOf(o), csrOf(old));
}

/** Field errors of a /status update: Approved and Denied may be neither added nor removed there. */
export function validateCertificateSigningRequestStatusUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const n = csrOf(o);
  const errs = validateUpdateCommon(n, csrOf(old));
  for (const t of [CSR_APPROVED, CSR_DENIED])
    if (types(n, t) > types(csrOf(old), t))
      errs.push(forbidden('status.conditions', `updates may not add a condition of type "${t}"`));
  return errs;
}
