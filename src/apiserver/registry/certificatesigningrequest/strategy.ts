/**
 * The CertificateSigningRequest strategies, like upstream's
 * pkg/registry/certificates/certificates/strategy.go: a create records who
 * asked (username, uid, groups, extra) and drops any status; an update of the
 * object changes neither spec nor status; /status keeps the spec and the
 * Approved/Denied conditions (signers write the certificate and Failed);
 * /approval changes only the conditions. Condition timestamps are filled in.
 */
import {
  csrSignatureValid,
  CSR_APPROVED,
  CSR_DENIED,
  formatTimestamp,
  parseCSR,
  toInvalidError,
  validation,
  type CertificateSigningRequest,
  type CertificateSigningRequestCondition,
  type ResourceInfo,
} from '../../../api/index.js';
import type { Obj } from '../../object.js';
import { genericStrategy, type Strategy, type WriteContext } from '../strategy.js';

const csrOf = (o: Obj): CertificateSigningRequest => o as CertificateSigningRequest;

/** The CSR strategy with its status and approval subresources. */
export function csrStrategy(info: ResourceInfo): Strategy {
  return genericStrategy(info, {
    otherStatusSubresources: ['approval'],
    alwaysHasSpec: true,
    alwaysHasStatus: true,
    prepareForCreate: async (o, ctx) => {
      const csr = csrOf(o);
      const spec = (csr.spec ??= {});
      delete spec.username;
      delete spec.uid;
      delete spec.groups;
      delete spec.extra;
      const u = ctx.user;
      if (u !== undefined) {
        spec.username = u.username;
        if (u.uid) spec.uid = u.uid;
        spec.groups = [...u.groups];
        if (u.extra !== undefined && Object.keys(u.extra).length > 0) spec.extra = structuredClone(u.extra);
      }
      csr.status = {};
      await checkSignature(csr);
    },
    prepareForUpdate: (o, old, ctx) => prepareForUpdate(csrOf(o), csrOf(old), ctx),
  });
}

// Like upstream's validation of spec.request, which checks the request's signature as well as its form.
async function checkSignature(csr: CertificateSigningRequest): Promise<void> {
  let parsed;
  try {
    parsed = parseCSR(csr.spec?.request ?? '');
  } catch {
    return; // Validation reports an unparseable request.
  }
  if (await csrSignatureValid(parsed)) return;
  const err = validation.invalidValue('spec.request', '<request data>', 'x509: signature verification failure');
  throw toInvalidError({ group: 'certificates.k8s.io', kind: 'CertificateSigningRequest' }, csr.metadata?.name ?? '', [
    err,
  ]);
}

function prepareForUpdate(n: CertificateSigningRequest, old: CertificateSigningRequest, ctx: WriteContext): void {
  n.spec = old.spec;
  const sub = ctx.subresource ?? '';
  if (sub === 'approval') {
    // Only the conditions change through /approval; the certificate stays.
    n.status = { ...old.status, conditions: n.status?.conditions ?? [] };
    if (n.status.conditions?.length === 0) delete n.status.conditions;
  } else if (sub === 'status') {
    const approvals = (old.status?.conditions ?? []).filter((c) => c.type === CSR_APPROVED || c.type === CSR_DENIED);
    const rest = (n.status?.conditions ?? []).filter((c) => c.type !== CSR_APPROVED && c.type !== CSR_DENIED);
    n.status = { ...n.status, conditions: [...approvals, ...rest] };
    if (n.status.conditions?.length === 0) delete n.status.conditions;
  } else {
    return; // The object itself: the store keeps the old status.
  }
  populateConditionTimestamps(n, old, ctx.now);
}

// Like upstream's populateConditionTimestamps: a condition without times gets now, or the old transition time.
function populateConditionTimestamps(n: CertificateSigningRequest, old: CertificateSigningRequest, now: number): void {
  const t = formatTimestamp(now);
  const oldByType = new Map<string, CertificateSigningRequestCondition>(
    (old.status?.conditions ?? []).map((c) => [c.type, c]),
  );
  for (const c of n.status?.conditions ?? []) {
    if (!c.lastUpdateTime) c.lastUpdateTime = t;
    if (!c.lastTransitionTime) {
      const prev = oldByType.get(c.type);
      c.lastTransitionTime =
        prev !== undefined && prev.status === c.status && prev.lastTransitionTime ? prev.lastTransitionTime : t;
    }
  }
}
