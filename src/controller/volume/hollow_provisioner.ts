/**
 * The hollow provisioner (`kscale.io/hollow`), an in-process stand-in for an
 * external provisioner such as kubernetes-sigs' sig-storage-lib-external-provisioner:
 * for each claim the binder handed to it, it creates a volume `pvc-<uid>` pre-bound
 * to the claim (pinned to the selected node under WaitForFirstConsumer), and it
 * deletes its Released volumes whose reclaim policy is Delete. The volume is a CSI
 * volume of driver kscale.io/hollow: nothing is stored anywhere.
 */
import {
  storageClassOf,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type StorageClass,
} from '../../api/index.js';
import {
  isAlreadyExistsError,
  isNotFoundError,
  RESOURCES,
  type Lister,
  type ResourceClient,
} from '../../client/index.js';
import type { ControllerContext } from '../controller_context.js';
import { parallelize, PeriodicController } from '../periodic.js';
import { ANN_SELECTED_NODE, ANN_STORAGE_PROVISIONER, SYNC_WORKERS } from './pv_controller.js';

/** The controller's name for --controllers. */
export const HOLLOW_PROVISIONER_CONTROLLER = 'hollow-provisioner-controller';
/** The provisioner name a StorageClass names to get hollow volumes. */
export const HOLLOW_PROVISIONER = 'kscale.io/hollow';
/** The annotation naming who provisioned a volume. */
export const ANN_PROVISIONED_BY = 'pv.kubernetes.io/provisioned-by';
const SYNC_PERIOD_MS = 500;

/** Creates volumes for hollow-class claims and deletes them when released. */
export class HollowProvisioner extends PeriodicController {
  protected readonly pass = (): Promise<void> => this.sync();
  readonly name = HOLLOW_PROVISIONER_CONTROLLER;
  private readonly pvLister: Lister<PersistentVolume>;
  private readonly pvcLister: Lister<PersistentVolumeClaim>;
  private readonly classLister: Lister<StorageClass>;
  private readonly pvs: ResourceClient<PersistentVolume>;

  constructor(ctx: ControllerContext) {
    super(ctx, SYNC_PERIOD_MS, 'hollow-provisioner');
    this.pvLister = ctx.informers.informerFor<PersistentVolume>(RESOURCES.persistentvolumes).lister();
    this.pvcLister = ctx.informers.informerFor<PersistentVolumeClaim>(RESOURCES.persistentvolumeclaims).lister();
    this.classLister = ctx.informers.informerFor<StorageClass>(RESOURCES.storageclasses).lister();
    this.pvs = ctx.client.resource<PersistentVolume>(RESOURCES.persistentvolumes);
  }

  /** One pass: provision what is asked for, delete what is released. */
  async sync(): Promise<void> {
    // Each claim gets its own volume, so claims are provisioned several at once, as the binder syncs them.
    const wanted = this.pvcLister
      .list()
      .filter(
        (pvc) =>
          pvc.metadata?.annotations?.[ANN_STORAGE_PROVISIONER] === HOLLOW_PROVISIONER &&
          !pvc.spec?.volumeName &&
          !pvc.metadata?.deletionTimestamp &&
          this.pvLister.get(`pvc-${pvc.metadata!.uid!}`) === undefined,
      );
    await parallelize(SYNC_WORKERS, wanted, (pvc) =>
      this.provision(pvc).catch((err: unknown) =>
        this.log.warn({ err: (err as Error).message }, 'provisioning a volume failed'),
      ),
    );
    for (const pv of this.pvLister.list()) {
      const ours = pv.metadata?.annotations?.[ANN_PROVISIONED_BY] === HOLLOW_PROVISIONER;
      if (!ours || pv.metadata?.deletionTimestamp) continue;
      if (pv.status?.phase !== 'Released' || pv.spec?.persistentVolumeReclaimPolicy !== 'Delete') continue;
      try {
        await this.pvs.delete(pv.metadata!.name!, { preconditions: { uid: pv.metadata!.uid! } });
        this.log.info({ volume: pv.metadata?.name }, 'deleted released volume');
      } catch (err) {
        if (!isNotFoundError(err)) this.log.warn({ err: (err as Error).message }, 'deleting volume failed');
      }
    }
  }

  private async provision(pvc: PersistentVolumeClaim): Promise<void> {
    const className = storageClassOf(pvc);
    const cls = this.classLister.get(className);
    if (cls === undefined) return;
    const name = `pvc-${pvc.metadata!.uid!}`;
    const node = pvc.metadata?.annotations?.[ANN_SELECTED_NODE];
    const pv: PersistentVolume = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name, annotations: { [ANN_PROVISIONED_BY]: HOLLOW_PROVISIONER } },
      spec: {
        capacity: { storage: pvc.spec?.resources?.requests?.storage ?? '0' },
        accessModes: pvc.spec?.accessModes ?? [],
        claimRef: {
          kind: 'PersistentVolumeClaim',
          apiVersion: 'v1',
          namespace: pvc.metadata!.namespace!,
          name: pvc.metadata!.name!,
          uid: pvc.metadata!.uid!,
          resourceVersion: pvc.metadata!.resourceVersion!,
        },
        persistentVolumeReclaimPolicy: cls.reclaimPolicy ?? 'Delete',
        storageClassName: className,
        volumeMode: pvc.spec?.volumeMode ?? 'Filesystem',
        ...(cls.mountOptions ? { mountOptions: cls.mountOptions } : {}),
        csi: { driver: HOLLOW_PROVISIONER, volumeHandle: name },
        ...(node
          ? {
              nodeAffinity: {
                required: {
                  nodeSelectorTerms: [
                    { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] },
                  ],
                },
              },
            }
          : {}),
      },
    };
    try {
      await this.pvs.create(pv);
      this.log.info({ claim: `${pvc.metadata?.namespace}/${pvc.metadata?.name}`, volume: name }, 'provisioned');
    } catch (err) {
      if (!isAlreadyExistsError(err)) throw err;
    }
  }
}
