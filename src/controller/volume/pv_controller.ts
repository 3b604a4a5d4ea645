/**
 * PersistentVolumeController (`persistentvolume-binder`), like upstream's
 * pkg/controller/volume/persistentvolume, simplified to one periodic pass
 * over the informers: a Pending claim binds to a matching volume (claimRef
 * and bound-by-controller on the volume, volumeName and bind-completed on the
 * claim, both phases Bound); with no match and a provisioning class it is
 * handed to the provisioner (volume.kubernetes.io/storage-provisioner) —
 * under WaitForFirstConsumer only once the scheduler has named a node
 * (volume.kubernetes.io/selected-node). A volume whose claim is gone is
 * Released. An idle cluster costs it no API calls.
 */
import {
  storageClassOf,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type StorageClass,
} from '../../api/index.js';
import { isNotFoundError, RESOURCES, type Lister, type ResourceClient } from '../../client/index.js';
import type { ControllerContext } from '../controller_context.js';
import { parallelize, PeriodicController } from '../periodic.js';
import { claimRefMatches, findMatchingVolume, volumePhase } from './binder.js';

/** The controller's name for --controllers. */
export const PERSISTENTVOLUME_BINDER_CONTROLLER = 'persistentvolume-binder-controller';
/** Set on a claim once the controller has bound it. */
export const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
/** Set on whichever side the controller (not the user) bound. */
export const ANN_BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
/** The provisioner a claim waits for. */
export const ANN_STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';
const ANN_BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
/** The node the scheduler chose for a WaitForFirstConsumer claim. */
export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';
/** How often the pass runs; upstream resyncs every --pvclaimbinder-sync-period (15 s) and reacts to events. */
const SYNC_PERIOD_MS = 500;
/**
 * Claims (and volumes) synced at once. Upstream runs one claim worker, each bind ~4 writes of a few ms to etcd; at
 * kscale's write latency under a 2,500-node load one worker took a StatefulSet's 30 claims ~17 s.
 */
export const SYNC_WORKERS = 16;

/** Binds claims to volumes and keeps both sides' phases. */
export class PersistentVolumeController extends PeriodicController {
  protected readonly pass = (): Promise<void> => this.sync();
  readonly name = PERSISTENTVOLUME_BINDER_CONTROLLER;
  private readonly pvLister: Lister<PersistentVolume>;
  private readonly pvcLister: Lister<PersistentVolumeClaim>;
  private readonly classLister: Lister<StorageClass>;
  private readonly pvs: ResourceClient<PersistentVolume>;
  private readonly pvcs: ResourceClient<PersistentVolumeClaim>;

  constructor(ctx: ControllerContext) {
    super(ctx, SYNC_PERIOD_MS, 'pv-binder');
    this.pvLister = ctx.informers.informerFor<PersistentVolume>(RESOURCES.persistentvolumes).lister();
    this.pvcLister = ctx.informers.informerFor<PersistentVolumeClaim>(RESOURCES.persistentvolumeclaims).lister();
    this.classLister = ctx.informers.informerFor<StorageClass>(RESOURCES.storageclasses).lister();
    this.pvs = ctx.client.resource<PersistentVolume>(RESOURCES.persistentvolumes);
    this.pvcs = ctx.client.resource<PersistentVolumeClaim>(RESOURCES.persistentvolumeclaims);
  }

  /**
   * One pass: claims first (binding), then volumes (phases). Each claim's writes touch only its own objects, except
   * when it would take a free volume: those claims go one at a time, so two never race for one volume.
   */
  async sync(): Promise<void> {
    const volumes = this.pvLister.list();
    const own: PersistentVolumeClaim[] = [];
    const free: PersistentVolumeClaim[] = [];
    for (const pvc of this.pvcLister.list()) (this.takesFreeVolume(pvc, volumes) ? free : own).push(pvc);
    await parallelize(SYNC_WORKERS, own, (pvc) => this.guard(() => this.syncClaim(pvc)));
    for (const pvc of free) await this.guard(() => this.syncClaim(pvc));
    await parallelize(SYNC_WORKERS, this.pvLister.list(), (pv) => this.guard(() => this.syncVolume(pv)));
  }

  /** Whether syncing the claim would bind it to a volume no claim names yet. */
  private takesFreeVolume(pvc: PersistentVolumeClaim, volumes: readonly PersistentVolume[]): boolean {
    if (pvc.spec?.volumeName || pvc.metadata?.deletionTimestamp) return false;
    const pv = findMatchingVolume(pvc, volumes);
    return pv !== undefined && pv.spec?.claimRef === undefined;
  }

  private async guard(fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      // A conflict or a vanished object is retried by the next pass.
      if (!isNotFoundError(err)) this.log.warn({ err: (err as Error).message }, 'persistentvolume-binder sync failed');
    }
  }

  private async syncClaim(pvc: PersistentVolumeClaim): Promise<void> {
    if (pvc.metadata?.deletionTimestamp) return;
    const ns = pvc.metadata!.namespace!;
    const name = pvc.metadata!.name!;
    const volumeName = pvc.spec?.volumeName;
    if (volumeName) {
      const pv = this.pvLister.get(volumeName);
      if (pv === undefined) {
        if (pvc.status?.phase === 'Bound') await this.setClaimPhase(pvc, 'Lost');
        return;
      }
      if (pv.spec?.claimRef === undefined) {
        // Bound by the user on the claim side: complete the volume side.
        await this.bindVolume(pv, pvc);
        return;
      }
      if (claimRefMatches(pv, pvc) && pvc.status?.phase !== 'Bound') await this.bindClaim(pvc, pv);
      return;
    }
    const pv = findMatchingVolume(pvc, this.pvLister.list());
    const cls = this.classLister.get(storageClassOf(pvc));
    const annotations = pvc.metadata?.annotations ?? {};
    const waiting = cls?.volumeBindingMode === 'WaitForFirstConsumer' && annotations[ANN_SELECTED_NODE] === undefined;
    if (pv !== undefined && !waiting) {
      const bound = pv.spec?.claimRef ? pv : await this.bindVolume(pv, pvc);
      await this.bindClaim(pvc, bound);
      return;
    }
    if (pv === undefined && cls !== undefined && !waiting && annotations[ANN_STORAGE_PROVISIONER] === undefined) {
      this.log.info({ claim: `${ns}/${name}`, provisioner: cls.provisioner }, 'waiting for a volume to be provisioned');
      const ann = { [ANN_STORAGE_PROVISIONER]: cls.provisioner, [ANN_BETA_STORAGE_PROVISIONER]: cls.provisioner };
      // An update, as upstream's binder writes claims (its role grants update, not patch).
      await this.pvcs.update(
        { ...pvc, metadata: { ...pvc.metadata, annotations: { ...annotations, ...ann } } },
        { namespace: ns },
      );
    }
  }

  /** Sets the volume's claimRef (bound-by-controller) and phase Bound. */
  private async bindVolume(pv: PersistentVolume, pvc: PersistentVolumeClaim): Promise<PersistentVolume> {
    const claimRef = {
      kind: 'PersistentVolumeClaim',
      namespace: pvc.metadata!.namespace!,
      name: pvc.metadata!.name!,
      uid: pvc.metadata!.uid!,
      apiVersion: 'v1',
      resourceVersion: pvc.metadata!.resourceVersion!,
    };
    const annotations = { ...pv.metadata?.annotations, [ANN_BOUND_BY_CONTROLLER]: 'yes' };
    const updated = await this.pvs.update({
      ...pv,
      metadata: { ...pv.metadata, annotations },
      spec: { ...pv.spec, claimRef },
    });
    return this.pvs.updateStatus({ ...updated, status: { ...updated.status, phase: 'Bound' } });
  }

  /** Sets the claim's volumeName and bind annotations, then its status: Bound with the volume's capacity. */
  private async bindClaim(pvc: PersistentVolumeClaim, pv: PersistentVolume): Promise<void> {
    const annotations: Record<string, string> = { ...pvc.metadata?.annotations, [ANN_BIND_COMPLETED]: 'yes' };
    if (!pvc.spec?.volumeName) annotations[ANN_BOUND_BY_CONTROLLER] = 'yes';
    let claim = pvc;
    if (pvc.spec?.volumeName !== pv.metadata!.name || pvc.metadata?.annotations?.[ANN_BIND_COMPLETED] !== 'yes')
      claim = await this.pvcs.update({
        ...pvc,
        metadata: { ...pvc.metadata, annotations },
        spec: { ...pvc.spec, volumeName: pv.metadata!.name! },
      });
    this.log.info({ claim: `${pvc.metadata?.namespace}/${pvc.metadata?.name}`, volume: pv.metadata?.name }, 'bound');
    await this.pvcs.updateStatus({
      ...claim,
      status: {
        ...claim.status,
        phase: 'Bound',
        accessModes: pv.spec?.accessModes ?? [],
        capacity: { ...pv.spec?.capacity },
      },
    });
  }

  private async setClaimPhase(pvc: PersistentVolumeClaim, phase: string): Promise<void> {
    await this.pvcs.updateStatus({ ...pvc, status: { ...pvc.status, phase } });
  }

  private async syncVolume(pv: PersistentVolume): Promise<void> {
    const ref = pv.spec?.claimRef;
    const claim = ref?.namespace && ref.name ? this.pvcLister.get(`${ref.namespace}/${ref.name}`) : undefined;
    const phase = volumePhase(pv, claim);
    if (phase === pv.status?.phase || pv.status?.phase === 'Failed') return;
    // A Released volume stays Released (upstream never re-binds it by itself) until its claimRef is cleared.
    if (pv.status?.phase === 'Released' && phase === 'Available' && ref !== undefined) return;
    await this.pvs.updateStatus({ ...pv, status: { ...pv.status, phase } });
  }
}
