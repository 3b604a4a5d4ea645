/**
 * Defaulting for PersistentVolumes, claims and StorageClasses, like upstream's
 * SetDefaults_PersistentVolume, SetDefaults_PersistentVolumeClaim(Spec) and
 * storage/v1 SetDefaults_StorageClass.
 */
import { isObject } from './types.js';

type Obj = Record<string, unknown>;
const spec = (o: Obj): Obj => (isObject(o.spec) ? o.spec : (o.spec = {}));
const status = (o: Obj): Obj => (isObject(o.status) ? o.status : (o.status = {}));

/** A PV's phase Pending, reclaim policy Retain and volume mode Filesystem. */
export function defaultPersistentVolume(pv: Obj): void {
  status(pv).phase ||= 'Pending';
  const s = spec(pv);
  s.persistentVolumeReclaimPolicy ||= 'Retain';
  s.volumeMode ||= 'Filesystem';
}

/** A claim's phase Pending and volume mode Filesystem. */
export function defaultPersistentVolumeClaim(pvc: Obj): void {
  status(pvc).phase ||= 'Pending';
  spec(pvc).volumeMode ||= 'Filesystem';
}

/** A StorageClass's reclaim policy Delete and binding mode Immediate. */
export function defaultStorageClass(sc: Obj): void {
  sc.reclaimPolicy ||= 'Delete';
  sc.volumeBindingMode ||= 'Immediate';
}
