/**
 * The CertificateSigningRequests' Table columns, with upstream's columns and its
 * extractCSRStatus: Denied, else Approved, else Pending; then Failed and
 * Issued when they apply.
 */
import {
  ageColumn,
  column,
  humanDuration,
  nameColumn,
  str,
  timestampSince,
  type ResourcePrinter,
} from '../printers/index.js';

interface CSRView {
  spec?: { signerName?: string; username?: string; expirationSeconds?: number };
  status?: { conditions?: { type?: string }[]; certificate?: string };
}

/** The CONDITION column: `Approved,Issued`, `Pending`, `Denied`. */
export function csrCondition(csr: CSRView): string {
  const types = new Set((csr.status?.conditions ?? []).map((c) => c.type));
  let s = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) s += ',Failed';
  if ((csr.status?.certificate ?? '') !== '') s += ',Issued';
  return s;
}

/** CertificateSigningRequests: NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION. */
export const csrTable: ResourcePrinter = {
  columns: [
    nameColumn(),
    ageColumn(),
    column('SignerName', 'string', 'Name of the signer that will issue the certificate'),
    column('Requestor', 'string', 'Name of the user who made the request'),
    column('RequestedDuration', 'string', 'Requested duration of the issued certificate'),
    column('Condition', 'string', 'Approval condition and whether the certificate was issued'),
  ],
  print: (obj, now) => {
    const csr = obj as CSRView;
    const exp = csr.spec?.expirationSeconds;
    return {
      cells: [
        str(obj.metadata?.name),
        timestampSince(obj.metadata?.creationTimestamp, now),
        csr.spec?.signerName ? csr.spec.signerName : '<none>',
        str(csr.spec?.username),
        exp === undefined ? '<none>' : humanDuration(exp * 1000),
        csrCondition(csr),
      ],
    };
  },
};
