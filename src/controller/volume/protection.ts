/**
 * The pvc-protection and pv-protection controllers (upstream's
 * pkg/controller/volume/pvcprotection and pvprotection): a deleting claim
 * keeps its kubernetes.io/pvc-protection finalizer while a non-terminated pod
 * of its namespace uses it, and a deleting volume keeps
 * kubernetes.io/pv-protection while it is Bound.
 */
import type { KubeObject, PersistentVolume, PersistentVolumeClaim, Pod } from '../../api/index.js';
import { isNotFoundError, RESOURCES, type Lister, type ResourceClient } from '../../client/index.js';
import type { ControllerContext } from '../controller_context.js';
import { PeriodicController } from '../periodic.js';

/** The pvc-protection controller's name for --controllers. */
export const PVC_PROTECTION_CONTROLLER = 'persistentvolumeclaim-protection-controller';
/** The pv-protection controller's name for --controllers. */
export const PV_PROTECTION_CONTROLLER = 'persistentvolume-protection-controller';
const PVC_FINALIZER = 'kubernetes.io/pvc-protection';
const PV_FINALIZER = 'kubernetes.io/pv-protection';
const SYNC_PERIOD_MS = 500;

/** Whether a pod that has not terminated names the claim in its volumes. */
export function podUsesClaim(pod: Pod, claim: string): boolean {
  if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return false;
  const volumes = (pod.spec as { volumes?: { persistentVolumeClaim?: { claimName?: string } }[] } | undefined)?.volumes;
  return (volumes ?? []).some((v) => v.persistentVolumeClaim?.claimName === claim);
}

/** One periodic pass that drops a finalizer from deleting objects once `inUse` says they are free. */
abstract class ProtectionController<T extends KubeObject> extends PeriodicController {
  protected readonly pass = (): Promise<void> => this.sync();

  constructor(
    ctx: ControllerContext,
    private readonly lister: Lister<T>,
    private readonly client: ResourceClient<T>,
    private readonly finalizer: string,
  ) {
    super(ctx, SYNC_PERIOD_MS, finalizer);
  }

  /** Whether the object is still in use, so its finalizer stays. */
  protected abstract inUse(obj: T): boolean;

  /** One pass over the deleting objects that still carry the finalizer. */
  async sync(): Promise<void> {
    for (const o of this.lister.list()) {
      const finalizers = o.metadata?.finalizers ?? [];
      if (!o.metadata?.deletionTimestamp || !finalizers.includes(this.finalizer) || this.inUse(o)) continue;
      try {
        await this.client.update({
          ...o,
          metadata: { ...o.metadata, finalizers: finalizers.filter((f) => f !== this.finalizer) },
        });
        this.log.info({ object: `${o.metadata.namespace ?? ''}/${o.metadata.name}` }, `removed ${this.finalizer}`);
      } catch (err) {
        if (!isNotFoundError(err)) this.log.warn({ err: (err as Error).message }, 'removing finalizer failed');
      }
    }
  }
}

/** Keeps deleting claims while pods use them. */
export class PVCProtectionController extends ProtectionController<PersistentVolumeClaim> {
  readonly name = PVC_PROTECTION_CONTROLLER;
  private readonly podLister: Lister<Pod>;

  constructor(ctx: ControllerContext) {
    super(
      ctx,
      ctx.informers.informerFor<PersistentVolumeClaim>(RESOURCES.persistentvolumeclaims).lister(),
      ctx.client.resource<PersistentVolumeClaim>(RESOURCES.persistentvolumeclaims),
      PVC_FINALIZER,
    );
    this.podLister = ctx.informers.informerFor<Pod>(RESOURCES.pods).lister();
  }

  protected inUse(pvc: PersistentVolumeClaim): boolean {
    const pods = this.podLister.namespace(pvc.metadata!.namespace!).list();
    return pods.some((p) => podUsesClaim(p, pvc.metadata!.name!));
  }
}

/** Keeps deleting volumes while they are Bound. */
export class PVProtectionController extends ProtectionController<PersistentVolume> {
  readonly name = PV_PROTECTION_CONTROLLER;

  constructor(ctx: ControllerContext) {
    super(
      ctx,
      ctx.informers.informerFor<PersistentVolume>(RESOURCES.persistentvolumes).lister(),
      ctx.client.resource<PersistentVolume>(RESOURCES.persistentvolumes),
      PV_FINALIZER,
    );
  }

  protected inUse(pv: PersistentVolume): boolean {
    return pv.status?.phase === 'Bound';
  }
}
