/**
 * What a kubelet client certificate request looks like, as upstream's
 * ValidateKubeletClientCSR (pkg/apis/certificates/v1/helpers.go): subject O
 * exactly `system:nodes`, CN `system:node:<name>`, no subject alternative
 * names, and the usages client-go's certificate manager asks for.
 */
import type { CertificateSigningRequest, ParsedCSR } from '../../api/index.js';

const NODE_PREFIX = 'system:node:';
const ALLOWED_USAGES = new Set(['digital signature', 'key encipherment', 'client auth']);

/** The reason `parsed` is not a kubelet client request, or undefined when it is one. */
export function kubeletClientCSRError(csr: CertificateSigningRequest, parsed: ParsedCSR): string | undefined {
  if (parsed.organizations.length !== 1 || parsed.organizations[0] !== 'system:nodes')
    return 'subject organization is not system:nodes';
  if (!parsed.commonName.startsWith(NODE_PREFIX) || parsed.commonName.length === NODE_PREFIX.length)
    return 'subject common name does not begin with system:node:';
  if (
    parsed.dnsNames.length > 0 ||
    parsed.emailAddresses.length > 0 ||
    parsed.ipAddresses.length > 0 ||
    parsed.uris.length > 0
  )
    return 'subject alternative names are not allowed';
  const usages = csr.spec?.usages ?? [];
  if (!usages.includes('client auth') || !usages.every((u) => ALLOWED_USAGES.has(u)))
    return 'usages must be client auth and digital signature (and key encipherment for RSA keys)';
  return undefined;
}
