/**
 * The csrcleaner controller, like pkg/controller/certificates/cleaner: every
 * hour it deletes CSRs past their use, with upstream's retention: approved
 * and issued, denied or failed ones an hour after that condition was last
 * updated, pending ones a day after creation, and any whose issued
 * certificate has expired. It reads from the informer only.
 */
import { isNotFoundError, RESOURCES, type Lister, type ResourceClient } from '../../client/index.js';
import {
  CSR_APPROVED,
  CSR_DENIED,
  CSR_FAILED,
  parseTimestamp,
  type CertificateSigningRequest,
} from '../../api/index.js';
import 'reflect-metadata'; // @peculiar/x509's dependency injection needs the Reflect polyfill loaded first.
import { X509Certificate } from '@peculiar/x509';
import type { ControllerContext } from '../controller_context.js';
import { PeriodicController } from '../periodic.js';

/** The controller's name for --controllers (upstream's names.CertificateSigningRequestCleanerController). */
export const CSR_CLEANER_CONTROLLER = 'certificatesigningrequest-cleaner-controller';

const POLLING_INTERVAL_MS = 3_600_000;
const APPROVED_EXPIRATION_MS = 3_600_000;
const DENIED_EXPIRATION_MS = 3_600_000;
const PENDING_EXPIRATION_MS = 24 * 3_600_000;

/** Why `csr` should go at `now`, or undefined while it is kept (upstream's isIssuedExpired and friends). */
export function csrCleanupReason(csr: CertificateSigningRequest, now: number): string | undefined {
  const cert = csr.status?.certificate ?? '';
  if (cert !== '') {
    try {
      const pem = Buffer.from(cert, 'base64').toString('utf8');
      if (new X509Certificate(pem).notAfter.getTime() < now) return 'issued certificate expired';
    } catch {
      // An unparseable certificate is judged by its conditions below.
    }
  }
  const cond = (type: string) => (csr.status?.conditions ?? []).find((c) => c.type === type);
  const updatedBefore = (type: string, ms: number): boolean => {
    const c = cond(type);
    const t = parseTimestamp(c?.lastUpdateTime);
    return c !== undefined && t !== undefined && t + ms < now;
  };
  if (cert !== '' && updatedBefore(CSR_APPROVED, APPROVED_EXPIRATION_MS)) return 'approved and issued over an hour ago';
  if (updatedBefore(CSR_DENIED, DENIED_EXPIRATION_MS)) return 'denied over an hour ago';
  if (updatedBefore(CSR_FAILED, DENIED_EXPIRATION_MS)) return 'failed over an hour ago';
  const created = parseTimestamp(csr.metadata?.creationTimestamp);
  const pending = cond(CSR_APPROVED) === undefined && cond(CSR_DENIED) === undefined;
  if (pending && created !== undefined && created + PENDING_EXPIRATION_MS < now) return 'pending for over a day';
  return undefined;
}

/** Deletes stale CSRs hourly. */
export class CSRCleanerController extends PeriodicController {
  protected readonly pass = (): Promise<void> => this.clean();
  readonly name = CSR_CLEANER_CONTROLLER;
  private readonly lister: Lister<CertificateSigningRequest>;
  private readonly csrs: ResourceClient<CertificateSigningRequest>;

  constructor(private readonly ctx: ControllerContext) {
    super(ctx, POLLING_INTERVAL_MS, 'csrcleaner');
    this.lister = ctx.informers.informerFor<CertificateSigningRequest>(RESOURCES.certificatesigningrequests).lister();
    this.csrs = ctx.client.resource<CertificateSigningRequest>(RESOURCES.certificatesigningrequests);
  }

  /** One pass over every cached CSR. */
  async clean(): Promise<void> {
    const now = this.ctx.clock.now();
    for (const csr of this.lister.list()) {
      const why = csrCleanupReason(csr, now);
      if (why === undefined) continue;
      this.log.info({ csr: csr.metadata?.name, why }, 'cleaning up certificate signing request');
      try {
        await this.csrs.delete(csr.metadata!.name!, { preconditions: { uid: csr.metadata!.uid! } });
      } catch (err) {
        if (!isNotFoundError(err)) this.log.warn({ csr: csr.metadata?.name, err: String(err) }, 'csr cleanup failed');
      }
    }
  }
}
