/**
 * The certificates admission plugins, like upstream's
 * plugin/pkg/admission/certificates:
 * - CertificateApproval: writing an Approved or Denied condition through
 *   /approval needs `approve` on `signers` named by the CSR's signerName (or
 *   its `<domain>/*` wildcard);
 * - CertificateSigning: writing status.certificate through /status needs `sign`
 *   on the signer, in the same way;
 * - CertificateSubjectRestriction: a CSR for kubernetes.io/kube-apiserver-client
 *   may not ask for group system:masters.
 */
import { forbidden, KUBE_APISERVER_CLIENT_SIGNER, parseCSR, type CertificateSigningRequest } from '../../api/index.js';
import type { Authorizer } from '../authorization/index.js';
import type { AdmissionPlugin, Attributes } from './chain.js';

const GROUP = 'certificates.k8s.io';
const CSR_RESOURCE = { group: GROUP, resource: 'certificatesigningrequests' };

const csrOf = (a: Attributes): CertificateSigningRequest | undefined =>
  a.resource === 'certificatesigningrequests'
    ? ((a.object as CertificateSigningRequest | null) ?? undefined)
    : undefined;

/** Whether the request's user may `verb` the signer `signerName`, directly or through `<domain>/*`. */
function allowedForSigner(authorizer: Authorizer, a: Attributes, verb: string, signerName: string): boolean {
  if (a.userInfo === undefined) return true; // The server's own writes.
  const ask = (name: string): boolean =>
    authorizer.authorize({
      user: a.userInfo!,
      verb,
      isResourceRequest: true,
      path: '',
      namespace: '',
      apiGroup: GROUP,
      resource: 'signers',
      subresource: '',
      name,
    }).decision === 'allow';
  if (ask(signerName)) return true;
  const slash = signerName.indexOf('/');
  return slash > 0 && ask(`${signerName.slice(0, slash)}/*`);
}

/**
 * A plugin that asks for `verb` on the CSR's signer when an UPDATE of `subresource` makes `changes` true
 * (upstream's approval and signing plugins share this shape).
 */
function signerPermission(
  name: string,
  subresource: string,
  verb: 'approve' | 'sign',
  changes: (csr: CertificateSigningRequest, old: CertificateSigningRequest | null) => boolean,
  authorizer: () => Authorizer,
): AdmissionPlugin {
  return {
    name,
    validate(a) {
      if (a.operation !== 'UPDATE' || a.subresource !== subresource) return;
      const csr = csrOf(a);
      if (csr === undefined || !changes(csr, a.oldObject as CertificateSigningRequest | null)) return;
      const signer = csr.spec?.signerName ?? '';
      if (!allowedForSigner(authorizer(), a, verb, signer))
        throw forbidden(CSR_RESOURCE, a.name, `user not permitted to ${verb} requests with signerName "${signer}"`);
    },
  };
}

/** CertificateApproval: approving or denying needs `approve` on the signer. */
export function certificateApproval(authorizer: () => Authorizer): AdmissionPlugin {
  return signerPermission('CertificateApproval', 'approval', 'approve', () => true, authorizer);
}

/** CertificateSigning: setting or changing status.certificate needs `sign` on the signer. */
export function certificateSigning(authorizer: () => Authorizer): AdmissionPlugin {
  const changed = (csr: CertificateSigningRequest, old: CertificateSigningRequest | null): boolean =>
    (csr.status?.certificate ?? '') !== (old?.status?.certificate ?? '');
  return signerPermission('CertificateSigning', 'status', 'sign', changed, authorizer);
}

/** CertificateSubjectRestriction: no system:masters through the kube-apiserver-client signer. */
export const certificateSubjectRestriction: AdmissionPlugin = {
  name: 'CertificateSubjectRestriction',
  validate(a) {
    if (a.operation !== 'CREATE' || a.subresource !== '') return;
    const csr = csrOf(a);
    if (csr === undefined || csr.spec?.signerName !== KUBE_APISERVER_CLIENT_SIGNER) return;
    let organizations: string[];
    try {
      organizations = parseCSR(csr.spec.request ?? '').organizations;
    } catch {
      return; // Validation reports the malformed request.
    }
    if (organizations.includes('system:masters'))
      throw forbidden(
        CSR_RESOURCE,
        a.name,
        `use of ${KUBE_APISERVER_CLIENT_SIGNER} signer with system:masters group is not allowed`,
      );
  },
};
