/**
 * Client certificates through the CSR API, like client-go's
 * util/certificate: a fresh ECDSA P-256 key, a CertificateSigningRequest for
 * a named signer, a watch on that one CSR until it is issued (or denied or
 * failed), and a CertificateManager that renews before expiry at a jittered
 * 70–84% of the certificate's lifetime (client-go's nextRotationDeadline).
 * Signing happens in the controller-manager; nothing here reads a CA key.
 */
import { createHash, X509Certificate } from 'node:crypto';
import type { Clock, Timer } from '../../clock/index.js';
import type { ClientLogger } from '../logger.js';
import type { RESTClient } from '../rest/client.js';
import { RESOURCES } from '../rest/resources.js';
import { generateKeyAndCSR, type CSRSubject } from './csr.js';
import type { CertificateSigningRequest } from '../../api/index.js';

const MAX_TIMER_MS = 2 ** 31 - 1;

/** An issued client certificate and its key, PEM. */
export interface ClientCertificate {
  certPEM: string;
  keyPEM: string;
  notBefore: number;
  notAfter: number;
}

/** What one request asks for. */
export interface CertificateRequest {
  subject: CSRSubject;
  signerName: string;
  usages: string[];
  /** The CSR name; like the kubelet's bootstrap, a digest of the request when absent. */
  name?: string;
  /** Give up on one CSR after this long (ms); the kubelet's bootstrap waits an hour. */
  timeoutMs?: number;
}

/** Runs the part of a request that should be bounded fleet-wide (key, CSR); the wait for approval runs outside it. */
export type Admit = <T>(fn: () => Promise<T>) => Promise<T>;

const admitAll: Admit = (fn) => fn();

/** Thrown when a CSR is denied or fails; `reason` and `message` are the condition's. */
export class CertificateRequestError extends Error {
  override readonly name = 'CertificateRequestError';
}

/** Thrown when a CSR is still Pending (neither approved nor denied) after the request's timeout. */
export class CertificatePendingError extends CertificateRequestError {}

/**
 * Creates a CSR for a new key with `client`, waits until it is issued, and returns the certificate.
 * `admit` bounds the key and the CSR's creation only: a CSR left Pending holds no slot while it waits.
 */
export async function requestCertificate(
  client: RESTClient,
  req: CertificateRequest,
  admit: Admit = admitAll,
): Promise<ClientCertificate> {
  const csrs = client.resource<CertificateSigningRequest>(RESOURCES.certificatesigningrequests);
  const { keyPEM, name } = await admit(async () => {
    const { keyPEM, csrPEM } = await generateKeyAndCSR(req.subject);
    const name = req.name ?? `node-csr-${createHash('sha256').update(csrPEM).digest('base64url').slice(0, 43)}`;
    await csrs.create({
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name },
      spec: { request: Buffer.from(csrPEM).toString('base64'), signerName: req.signerName, usages: req.usages },
    });
    return { keyPEM, name };
  });
  const certPEM = await waitForCertificate(client, name, req.timeoutMs ?? 3_600_000);
  return { certPEM, keyPEM, ...validity(certPEM) };
}

/** Watches CSR `name` (fieldSelector metadata.name) until it carries a certificate; throws when denied or failed. */
export async function waitForCertificate(client: RESTClient, name: string, timeoutMs: number): Promise<string> {
  const csrs = client.resource<CertificateSigningRequest>(RESOURCES.certificatesigningrequests);
  const signal = AbortSignal.timeout(timeoutMs);
  const fieldSelector = `metadata.name=${name}`;
  try {
    for (;;) {
      const list = await csrs.list({ fieldSelector, signal });
      const now = issued(list.items[0], name);
      if (now !== undefined) return now;
      const w = await csrs.watch({ fieldSelector, resourceVersion: list.metadata?.resourceVersion ?? '', signal });
      try {
        for await (const ev of w) {
          if (ev.type === 'ERROR') break;
          if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED') continue;
          const cert = issued(ev.object, name);
          if (cert !== undefined) return cert;
        }
      } finally {
        w.stop();
      }
      signal.throwIfAborted();
    }
  } catch (err) {
    // The timeout aborts whichever list or watch is open: the CSR is still Pending.
    if (signal.aborted && !(err instanceof CertificateRequestError))
      throw new CertificatePendingError(`csr ${name} is still Pending after ${timeoutMs / 1000}s: nobody approved it`);
    throw err;
  }
}

/** The PEM certificate of an issued CSR, undefined while pending; throws when denied or failed. */
function issued(csr: CertificateSigningRequest | undefined, name: string): string | undefined {
  for (const c of csr?.status?.conditions ?? [])
    if ((c.type === 'Denied' || c.type === 'Failed') && c.status !== 'False')
      throw new CertificateRequestError(
        `certificate signing request ${name} is ${c.type === 'Denied' ? 'denied' : 'failed'}, reason: ${c.reason ?? ''}, message: ${c.message ?? ''}`,
      );
  const cert = csr?.status?.certificate;
  return cert !== undefined && cert !== '' ? Buffer.from(cert, 'base64').toString('utf8') : undefined;
}

/** notBefore and notAfter of a PEM certificate, in ms since the epoch. */
export function validity(certPEM: string): { notBefore: number; notAfter: number } {
  const x = new X509Certificate(certPEM);
  return { notBefore: Date.parse(x.validFrom), notAfter: Date.parse(x.validTo) };
}

/** client-go's nextRotationDeadline: notBefore plus 70% of the lifetime, jittered up by as much as 20% of that. */
export function rotationDeadline(cert: { notBefore: number; notAfter: number }, random: () => number): number {
  const total = (cert.notAfter - cert.notBefore) * 0.7;
  return cert.notBefore + total * (1 + 0.2 * random());
}

/** Knobs of a CertificateManager. */
export interface CertificateManagerOptions {
  request: CertificateRequest;
  /** The client that asks for the first certificate (a bootstrap token's). */
  bootstrap: RESTClient;
  /** CSRs sent for the first certificate before giving up, each waiting request.timeoutMs (default 1). */
  attempts?: number;
  /** The client that asks for renewals, with the current certificate (selfnodeclient). */
  current: () => RESTClient;
  /** Called with every new certificate, the first one included. */
  onCertificate: (cert: ClientCertificate) => void;
  clock: Clock;
  random: () => number;
  logger: ClientLogger;
}

/** Holds one client certificate and renews it before it expires, like client-go's certificate manager. */
export class CertificateManager {
  private cert: ClientCertificate | undefined;
  private timer: Timer | undefined;
  private stopped = false;
  /** Certificates issued so far (the first one and renewals). */
  issued = 0;

  constructor(private readonly o: CertificateManagerOptions) {}

  /** The current certificate, if any. */
  get current(): ClientCertificate | undefined {
    return this.cert;
  }

  /**
   * Gets the first certificate with the bootstrap client; rejects when its CSR is denied or fails, or when every
   * attempt's CSR stayed Pending (like a kubelet whose bootstrap times out and is restarted, each sends a new one).
   */
  async start(admit: Admit = admitAll): Promise<ClientCertificate> {
    const attempts = Math.max(1, this.o.attempts ?? 1);
    for (let i = 1; ; i++) {
      try {
        const cert = await requestCertificate(this.o.bootstrap, this.o.request, admit);
        this.use(cert);
        return cert;
      } catch (err) {
        if (!(err instanceof CertificatePendingError) || this.stopped) throw err;
        if (i >= attempts)
          throw new CertificatePendingError(`${err.message}; gave up after ${attempts} CSR(s)`, { cause: err });
        this.o.logger.warn(
          { subject: this.o.request.subject.commonName, attempt: i, of: attempts, err: err.message },
          'the client certificate request is still Pending; sending a new CSR',
        );
      }
    }
  }

  /** Stops renewing. */
  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }

  private use(cert: ClientCertificate): void {
    this.cert = cert;
    this.issued++;
    this.o.onCertificate(cert);
    // Signers backdate notBefore (5 min, for skew); counted from then, a short certificate would be renewed at
    // once and forever. The lifetime is counted from when it arrived instead.
    const from = Math.max(cert.notBefore, Math.min(this.o.clock.now(), cert.notAfter));
    this.schedule(rotationDeadline({ notBefore: from, notAfter: cert.notAfter }, this.o.random));
  }

  private schedule(at: number): void {
    if (this.stopped) return;
    const delay = Math.max(0, at - this.o.clock.now());
    // Timers hold at most 2^31-1 ms (24.8 days); a year-long certificate waits in steps.
    this.timer =
      delay > MAX_TIMER_MS
        ? this.o.clock.setTimeout(() => this.schedule(at), MAX_TIMER_MS)
        : this.o.clock.setTimeout(() => void this.rotate(), delay);
  }

  private async rotate(): Promise<void> {
    if (this.stopped) return;
    const { name: _fixed, ...renewal } = this.o.request;
    try {
      this.use(await requestCertificate(this.o.current(), renewal));
    } catch (err) {
      this.o.logger.warn(
        { subject: this.o.request.subject.commonName, err: String(err) },
        'renewing the client certificate failed; retrying',
      );
      // Like client-go: back off and retry, well before the certificate expires.
      this.schedule(
        this.o.clock.now() + Math.min(30_000, Math.max(1_000, (this.cert!.notAfter - this.o.clock.now()) / 10)),
      );
    }
  }
}
