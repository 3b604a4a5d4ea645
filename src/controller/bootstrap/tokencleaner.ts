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
  RESOURCES,
  splitMetaNamespaceKey,
  type Lister,
  type ResourceClient,
} from '../../client/index.js';
import type { Clock } from '../../clock/index.js';
import {
  BOOTSTRAP_TOKEN_NAMESPACE,
  bootstrapTokenExpiry,
  SECRET_TYPE_BOOTSTRAP_TOKEN,
  type Secret,
} from '../../api/index.js';
import type { ControllerContext } from '../controller_context.js';
import { QueueController } from '../controllerutil/index.js';

/** The controller's name for --controllers (upstream's names.TokenCleanerController). */
export const TOKEN_CLEANER_CONTROLLER = 'token-cleaner-controller';

/** Deletes expired bootstrap tokens. */
export class TokenCleaner extends QueueController {
  protected readonly syncHandler = (key: string): Promise<void> => this.syncFunc(key);
  private readonly lister: Lister<Secret>;
  private readonly secrets: ResourceClient<Secret>;
  private readonly clock: Clock;

  constructor(ctx: ControllerContext) {
    super(TOKEN_CLEANER_CONTROLLER, ctx, { workers: 1 }); // upstream runs one worker
    this.clock = ctx.clock;
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
