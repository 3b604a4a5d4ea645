/**
 * The csrsigning controller, like pkg/controller/certificates/signer: signs
 * approved, not yet issued CSRs for kubernetes.io/kube-apiserver-client-kubelet
 * and kubernetes.io/kube-apiserver-client with the CA of
 * --cluster-signing-cert-file/--cluster-signing-key-file. A request its
 * signer may not issue (a kubelet CSR that is not a node client certificate,
 * a client CSR asking for server usages) gets the Failed condition instead.
 * The lifetime is the lesser of spec.expirationSeconds and
 * --cluster-signing-duration.
 */
import { RESOURCES, type ClientLogger, type ResourceClient } from '../../client/index.js';
import {
  CSR_FAILED,
  formatTimestamp,
  hasCSRFailed,
  isCSRApproved,
  KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
  KUBE_APISERVER_CLIENT_SIGNER,
  parseCSR,
  type CertificateSigningRequest,
  type ParsedCSR,
} from '../../api/index.js';
import type { Clock } from '../../clock/index.js';
import type { ControllerContext } from '../controller_context.js';
import { CertificateAuthority } from './authority.js';
import { CertificateController } from './certificate_controller.js';
import type { CSRSigningControllerOptions } from './config.js';
import { kubeletClientCSRError } from './kubelet_client.js';

/** The controller's name for --controllers (upstream's names.CertificateSigningRequestSigningController). */
export const CSR_SIGNING_CONTROLLER = 'certificatesigningrequest-signing-controller';

const CLIENT_USAGES = new Set(['digital signature', 'key encipherment', 'client auth']);

// Each signer's check of what it may issue: undefined when it may.
const SIGNERS: Record<string, (csr: CertificateSigningRequest, parsed: ParsedCSR) => string | undefined> = {
  [KUBE_APISERVER_CLIENT_KUBELET_SIGNER]: kubeletClientCSRError,
  [KUBE_APISERVER_CLIENT_SIGNER]: (csr) => {
    const usages = csr.spec?.usages ?? [];
    if (!usages.includes('client auth') || !usages.every((u) => CLIENT_USAGES.has(u)))
      return 'usages must be client auth, with digital signature and key encipherment allowed';
    return undefined;
  },
};

/** Builds the csrsigning controller (it signs nothing without a CA). */
export function newCSRSigningController(
  ctx: ControllerContext,
  opts: CSRSigningControllerOptions = ctx.config.csrSigning,
): CertificateController {
  const signer = new CSRSigner(ctx, opts);
  return new CertificateController(ctx, CSR_SIGNING_CONTROLLER, (csr) => signer.handle(csr));
}

/** Signs one CSR at a time. */
export class CSRSigner {
  private readonly ca: CertificateAuthority | undefined;
  private readonly csrs: ResourceClient<CertificateSigningRequest>;
  private readonly clock: Clock;
  private readonly log: ClientLogger;

  constructor(
    ctx: ControllerContext,
    private readonly opts: CSRSigningControllerOptions,
  ) {
    this.csrs = ctx.client.resource<CertificateSigningRequest>(RESOURCES.certificatesigningrequests);
    this.clock = ctx.clock;
    this.log = ctx.logger;
    this.ca =
      opts.certPEM !== undefined && opts.keyPEM !== undefined
        ? new CertificateAuthority(opts.certPEM, opts.keyPEM)
        : undefined;
    if (this.ca === undefined) this.log.info({}, 'csrsigning: no --cluster-signing-cert-file: signing nothing');
  }

  /** Issues the certificate of an approved CSR of a known signer, or marks it Failed. */
  async handle(csr: CertificateSigningRequest): Promise<void> {
    if (this.ca === undefined) return;
    if (!isCSRApproved(csr) || hasCSRFailed(csr) || (csr.status?.certificate ?? '') !== '') return;
    const check = SIGNERS[csr.spec?.signerName ?? ''];
    if (check === undefined) return;
    const parsed = parseCSR(csr.spec?.request ?? '');
    const problem = check(csr, parsed);
    const name = csr.metadata!.name!;
    const now = this.clock.now();
    if (problem !== undefined) {
      const t = formatTimestamp(now);
      const failed = {
        type: CSR_FAILED,
        status: 'True',
        reason: 'SignerValidationFailure',
        message: problem,
        lastUpdateTime: t,
        lastTransitionTime: t,
      };
      await this.csrs.updateStatus({
        ...csr,
        status: { ...csr.status, conditions: [...(csr.status?.conditions ?? []), failed] },
      });
      this.log.info({ csr: name, reason: problem }, 'certificate signing request failed validation');
      return;
    }
    const exp = csr.spec?.expirationSeconds;
    const ttl = exp === undefined ? this.opts.durationMs : Math.min(exp * 1000, this.opts.durationMs);
    const pem = await this.ca.sign(parsed, csr.spec?.usages ?? [], ttl, now);
    await this.csrs.updateStatus({
      ...csr,
      status: { ...csr.status, certificate: Buffer.from(pem).toString('base64') },
    });
    this.log.info({ csr: name, signer: csr.spec?.signerName }, 'signed certificate signing request');
  }
}
