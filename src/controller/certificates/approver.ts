/**
 * The csrapproving controller, like pkg/controller/certificates/approver/sarapprove.go:
 * a pending kubelet client CSR (signer kubernetes.io/kube-apiserver-client-kubelet)
 * is approved when its requester may `create` certificatesigningrequests/selfnodeclient
 * (a node renewing its own certificate: CN equals the requester) or
 * .../nodeclient (a bootstrap token asking for a new node), as a
 * SubjectAccessReview for the requester answers. Anything else is left for a
 * human or another approver.
 *
 * Until the server serves SubjectAccessReview, the controller falls back to
 * the groups kubeadm binds those permissions to: `system:bootstrappers`
 * for nodeclient and `system:nodes` for selfnodeclient.
 */
import { isNotFoundError, RESOURCES, type ClientLogger, type ResourceClient } from '../../client/index.js';
import {
  CSR_APPROVED,
  formatTimestamp,
  isCSRApproved,
  isCSRDenied,
  KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
  parseCSR,
  type CertificateSigningRequest,
  type KubeObject,
  type ParsedCSR,
} from '../../api/index.js';
import type { Clock } from '../../clock/index.js';
import type { ControllerContext } from '../controller_context.js';
import { CertificateController } from './certificate_controller.js';
import { kubeletClientCSRError } from './kubelet_client.js';

/** The controller's name for --controllers (upstream's names.CertificateSigningRequestApprovingController). */
export const CSR_APPROVING_CONTROLLER = 'certificatesigningrequest-approving-controller';

interface Recognizer {
  subresource: 'selfnodeclient' | 'nodeclient';
  /** The group a requester holds the permission through when SubjectAccessReview is not served. */
  fallbackGroup: string;
  recognize(csr: CertificateSigningRequest, parsed: ParsedCSR): boolean;
  message: string;
}

const isNodeClient = (csr: CertificateSigningRequest, parsed: ParsedCSR): boolean =>
  csr.spec?.signerName === KUBE_APISERVER_CLIENT_KUBELET_SIGNER && kubeletClientCSRError(csr, parsed) === undefined;

// In upstream's order: a node renewing its own certificate first.
const RECOGNIZERS: readonly Recognizer[] = [
  {
    subresource: 'selfnodeclient',
    fallbackGroup: 'system:nodes',
    recognize: (csr, parsed) => isNodeClient(csr, parsed) && parsed.commonName === csr.spec?.username,
    message: 'Auto approving self kubelet client certificate after SubjectAccessReview.',
  },
  {
    subresource: 'nodeclient',
    fallbackGroup: 'system:bootstrappers',
    recognize: isNodeClient,
    message: 'Auto approving kubelet client certificate after SubjectAccessReview.',
  },
];

const SUBJECT_ACCESS_REVIEWS = {
  group: 'authorization.k8s.io',
  version: 'v1',
  resource: 'subjectaccessreviews',
  namespaced: false,
} as const;

interface SubjectAccessReview extends KubeObject {
  status?: { allowed?: boolean };
}

/** Builds the csrapproving controller. */
export function newCSRApprovingController(ctx: ControllerContext): CertificateController {
  const approver = new SARApprover(ctx);
  return new CertificateController(ctx, CSR_APPROVING_CONTROLLER, (csr) => approver.handle(csr));
}

/** The approval decision for one CSR at a time. */
export class SARApprover {
  private readonly csrs: ResourceClient<CertificateSigningRequest>;
  private readonly reviews: ResourceClient<SubjectAccessReview>;
  private readonly log: ClientLogger;
  private readonly clock: Clock;
  private sarServed = true;

  constructor(ctx: ControllerContext) {
    this.csrs = ctx.client.resource<CertificateSigningRequest>(RESOURCES.certificatesigningrequests);
    this.reviews = ctx.client.resource<SubjectAccessReview>(SUBJECT_ACCESS_REVIEWS);
    this.log = ctx.logger;
    this.clock = ctx.clock;
  }

  /** Approves `csr` when a recognizer matches and the requester holds its permission. */
  async handle(csr: CertificateSigningRequest): Promise<void> {
    if ((csr.status?.certificate ?? '') !== '' || isCSRApproved(csr) || isCSRDenied(csr)) return;
    const parsed = parseCSR(csr.spec?.request ?? '');
    const tried: string[] = [];
    for (const r of RECOGNIZERS) {
      if (!r.recognize(csr, parsed)) continue;
      tried.push(r.subresource);
      if (!(await this.authorize(csr, r))) continue;
      const now = formatTimestamp(this.clock.now());
      const conditions = [...(csr.status?.conditions ?? [])];
      conditions.push({
        type: CSR_APPROVED,
        status: 'True',
        reason: 'AutoApproved',
        message: r.message,
        lastUpdateTime: now,
        lastTransitionTime: now,
      });
      await this.csrs.updateSubresource(csr.metadata!.name!, 'approval', {
        ...csr,
        status: { ...csr.status, conditions },
      });
      this.log.info({ csr: csr.metadata?.name, permission: r.subresource }, 'approved certificate signing request');
      return;
    }
    if (tried.length > 0)
      this.log.debug({ csr: csr.metadata?.name, tried }, 'recognized csr but subject access review was not approved');
  }

  // A SubjectAccessReview for the requester, as upstream's authorize; the group fallback while the API lacks one.
  private async authorize(csr: CertificateSigningRequest, r: Recognizer): Promise<boolean> {
    const spec = csr.spec ?? {};
    if (this.sarServed) {
      try {
        const review = await this.reviews.create({
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: spec.username,
            uid: spec.uid,
            groups: spec.groups,
            extra: spec.extra,
            resourceAttributes: {
              group: 'certificates.k8s.io',
              resource: 'certificatesigningrequests',
              verb: 'create',
              subresource: r.subresource,
            },
          },
        } as SubjectAccessReview);
        return review.status?.allowed === true;
      } catch (err) {
        if (!isNotFoundError(err)) throw err;
        this.sarServed = false;
        this.log.warn({}, 'the API server serves no SubjectAccessReview: approving by the kubeadm bootstrap groups');
      }
    }
    return (spec.groups ?? []).includes(r.fallbackGroup);
  }
}
