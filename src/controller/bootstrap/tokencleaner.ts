/**
 * TokenCleaner, like pkg/controller/bootstrap/tokencleaner.go: deletes
 * bootstrap token Secrets (kube-system, type bootstrap.kubernetes.io/token)
 * once their `expiration` has passed. A token that is not yet expired is
 * queued again for the moment it expires, so nothing polls. Deletion carries
 * the Secret's uid as a precondition, as upstream's does.
 */
import {
  isNotFoundError,
  metaNamespaceKeyFunc,
  RateLimitingQueue,
  RESOURCES,
  runWorkers,
  splitMetaNamespaceKey,
  type ClientLogger,
  type Lister,
  type ResourceClient,
  type Workers,
} from '../../client/index.js';
import type { Clock } from '../../clock/index.js';
import {
  BOOTSTRAP_TOKEN_NAMESPACE,
  bootstrapTokenExpiry,
  SECRET_TYPE_BOOTSTRAP_TOKEN,
  type Secret,
} from '../../api/index.js';
import type { Controller, ControllerContext } from '../controller_context.js';

/** The controller's name for --controllers (upstream's names.TokenCleanerController). */
export const TOKEN_CLEANER_CONTROLLER = 'token-cleaner-controller';

/** Deletes expired bootstrap tokens. */
export class TokenCleaner implements Controller {
  readonly name = TOKEN_CLEANER_CONTROLLER;
  readonly queue: RateLimitingQueue<string>;
  private readonly lister: Lister<Secret>;
  private readonly secrets: ResourceClient<Secret>;
  private readonly clock: Clock;
  private readonly log: ClientLogger;
  private workers: Workers | undefined;

  constructor(ctx: ControllerContext) {
    this.clock = ctx.clock;
    this.log = ctx.logger;
    this.queue = new RateLimitingQueue<string>({ clock: ctx.clock });
    const informer = ctx.informers.informerFor<Secret>(RESOURCES.secrets, {
      namespace: BOOTSTRAP_TOKEN_NAMESPACE,
      fieldSelector: `type=${SECRET_TYPE_BOOTSTRAP_TOKEN}`,
    });
    this.lister = informer.lister();
    this.secrets = ctx.client.resource<Secret>(RESOURCES.secrets);
    informer.addEventHandler({
      onAdd: (s) => this.queue.add(metaNamespaceKeyFunc(s)),
      onUpdate: (_o, s) => this.queue.add(metaNamespaceKeyFunc(s)),
      onDelete: (s) => this.queue.forget(metaNamespaceKeyFunc(s)),
    });
  }

  /** Starts the worker (upstream runs one). */
  run(): void {
    this.workers = runWorkers(this.queue, 1, (key) => this.syncFunc(key), {
      logger: this.log,
      name: TOKEN_CLEANER_CONTROLLER,
    });
  }

  /** Stops the worker. */
  async stop(): Promise<void> {
    await this.workers?.stop();
  }

  /** True when no token is being looked at. */
  isIdle(): boolean {
    return this.workers?.idle() ?? this.queue.len() === 0;
  }

  /** Deletes the Secret behind `key` if it has expired, or looks again when it will. */
  async syncFunc(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const secret = this.lister.get(key);
    if (secret === undefined || secret.type !== SECRET_TYPE_BOOTSTRAP_TOKEN) return;
    const expiry = bootstrapTokenExpiry(secret);
    if (expiry === undefined) return;
    const left = expiry - this.clock.now();
    if (left > 0) {
      this.queue.addAfter(key, left);
      return;
    }
    this.log.info({ secret: key }, 'deleting expired bootstrap token');
    try {
      await this.secrets.delete(name, { namespace, preconditions: { uid: secret.metadata!.uid! } });
    } catch (err) {
      if (!isNotFoundError(err)) throw err;
    }
  }
}
