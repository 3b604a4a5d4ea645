/**
 * How a hollow node gets its identity, like the kubelet's TLS bootstrap
 * (pkg/kubelet/certificate/bootstrap, --bootstrap-kubeconfig): with the
 * bootstrap token it sends a kubelet client CSR (signer
 * kube-apiserver-client-kubelet, CN system:node:<name>, O system:nodes),
 * waits for the controller-manager to approve and sign it, then talks over
 * a connection of its own with that certificate and renews it itself
 * (selfnodeclient). The fleet bounds how many nodes bootstrap at once.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CertificateManager,
  Http1Transport,
  type Admit,
  Http2Transport,
  newAgent,
  useHTTP2,
  type ClientCertificate,
  type ClientLogger,
  type RESTClient,
  type RestConfig,
  type Transport,
} from '../client/index.js';
import type { Clock } from '../clock/index.js';
import { KUBE_APISERVER_CLIENT_KUBELET_SIGNER } from '../api/index.js';

/** A counting semaphore: at most `limit` holders at once, the rest wait in FIFO order. */
export class JoinLimiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  /** Runs `fn` once a slot is free. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    else this.active++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.active--;
    }
  }
}

/** What one node's bootstrap needs. */
export interface NodeJoinOptions {
  node: string;
  /** The server and CA, without credentials: the node adds its own certificate. */
  config: RestConfig;
  /** The bootstrap token's client, shared by the fleet. */
  bootstrap: RESTClient;
  /** The node's clients; each is moved to the node's connection whenever the certificate changes. */
  clients: RESTClient[];
  /** Write each certificate and key to <certDir>/<node>/kubelet-client-current.pem, as the kubelet's --cert-dir. */
  certDir?: string;
  /** How long one CSR may stay Pending (ms; the kubelet's hour by default), and how many CSRs before giving up. */
  pendingTimeoutMs?: number;
  attempts?: number;
  clock: Clock;
  random: () => number;
  logger: ClientLogger;
}

/** One node's client certificate and the TLS connection that carries it (one HTTP/2 session, as a kubelet's). */
export class NodeJoin {
  readonly certificates: CertificateManager;
  private transport: Transport | undefined;

  constructor(private readonly o: NodeJoinOptions) {
    this.certificates = new CertificateManager({
      request: {
        subject: { commonName: `system:node:${o.node}`, organizations: ['system:nodes'] },
        signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
        usages: ['digital signature', 'client auth'],
        ...(o.pendingTimeoutMs !== undefined ? { timeoutMs: o.pendingTimeoutMs } : {}),
      },
      ...(o.attempts !== undefined ? { attempts: o.attempts } : {}),
      bootstrap: o.bootstrap,
      current: () => o.clients[0]!,
      onCertificate: (c) => this.use(c),
      clock: o.clock,
      random: o.random,
      logger: o.logger,
    });
  }

  /**
   * Bootstraps the node's certificate; rejects (with the CSR's condition) when it is denied or fails, or stays
   * Pending through every attempt. `admit` bounds key generation and the CSR's creation, not the wait for approval.
   */
  async start(admit?: Admit): Promise<void> {
    await this.certificates.start(admit);
    this.o.logger.info({ node: this.o.node }, 'client certificate issued; the node talks as itself');
  }

  /** Stops renewals and closes the node's connection. */
  stop(): void {
    this.certificates.stop();
    this.transport?.close();
  }

  /** The node's connection: its HTTP/2 session, or an HTTP/1.1 agent under DISABLE_HTTP2; none before it joined. */
  get connection(): Transport | undefined {
    return this.transport;
  }

  private use(cert: ClientCertificate): void {
    const config: RestConfig = { ...this.o.config, cert: Buffer.from(cert.certPEM), key: Buffer.from(cert.keyPEM) };
    const old = this.transport;
    this.transport = useHTTP2(config)
      ? new Http2Transport(config, { clock: this.o.clock, random: this.o.random })
      : new Http1Transport(newAgent(config), true);
    for (const client of this.o.clients) client.useTransport(this.transport);
    // Like client-go's connection rotation: connections with the old certificate are closed, watches reconnect.
    old?.close();
    if (this.o.certDir !== undefined) {
      const dir = join(this.o.certDir, this.o.node);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(join(dir, 'kubelet-client-current.pem'), `${cert.certPEM.trimEnd()}\n${cert.keyPEM.trimEnd()}\n`, {
        mode: 0o600,
      });
    }
  }
}
