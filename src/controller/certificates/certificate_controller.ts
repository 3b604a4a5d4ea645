/**
 * CertificateController, like pkg/controller/certificates/certificate_controller.go:
 * the informer, queue and workers the csrapproving and csrsigning controllers
 * share. Every CSR add and update queues its name; a worker hands the cached
 * CSR to the controller's handler, and a failed handle is retried with
 * back-off.
 */
import {
  metaNamespaceKeyFunc,
  RateLimitingQueue,
  RESOURCES,
  runWorkers,
  type ClientLogger,
  type Lister,
  type Workers,
} from '../../client/index.js';
import type { CertificateSigningRequest } from '../../api/index.js';
import type { Controller, ControllerContext } from '../controller_context.js';

/** Handles one CSR; throws to be retried. */
export type CSRHandler = (csr: CertificateSigningRequest) => Promise<void>;

/** A queue of CSR names worked by `handler`. */
export class CertificateController implements Controller {
  readonly queue: RateLimitingQueue<string>;
  private readonly lister: Lister<CertificateSigningRequest>;
  private readonly log: ClientLogger;
  private workers: Workers | undefined;

  constructor(
    ctx: ControllerContext,
    readonly name: string,
    private readonly handler: CSRHandler,
    private readonly workerCount = 5,
  ) {
    this.log = ctx.logger;
    this.queue = new RateLimitingQueue<string>({ clock: ctx.clock, name });
    const informer = ctx.informers.informerFor<CertificateSigningRequest>(RESOURCES.certificatesigningrequests);
    this.lister = informer.lister();
    informer.addEventHandler({
      onAdd: (c) => this.queue.add(metaNamespaceKeyFunc(c)),
      onUpdate: (_o, c) => this.queue.add(metaNamespaceKeyFunc(c)),
    });
  }

  /** Starts the workers. */
  run(): void {
    this.workers = runWorkers(this.queue, this.workerCount, (key) => this.sync(key), {
      logger: this.log,
      name: this.name,
    });
  }

  /** Stops the workers. */
  async stop(): Promise<void> {
    await this.workers?.stop();
  }

  /** True when no CSR is queued or being handled. */
  isIdle(): boolean {
    return this.workers?.idle() ?? this.queue.len() === 0;
  }

  private async sync(key: string): Promise<void> {
    const csr = this.lister.get(key);
    if (csr === undefined) return;
    // Handlers change what they are given; the cache's copy is shared.
    await this.handler(structuredClone(csr));
  }
}
