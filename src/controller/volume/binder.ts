/**
 * Static binding, like pkg/controller/volume/persistentvolume's
 * findMatchingVolume: the smallest Available volume of the claim's class whose
 * access modes, capacity, volume mode and labels satisfy the claim, preferring
 * one pre-bound to it. Pure functions, so the phases are unit-tested.
 */
import {
  compareQuantities,
  fromLabelSelector,
  storageClassOf,
  type PersistentVolume,
  type PersistentVolumeClaim,
} from '../../api/index.js';

/** Whether `pv.spec.claimRef` names `pvc` (by namespace and name, and by uid when the ref has one). */
export function claimRefMatches(pv: PersistentVolume, pvc: PersistentVolumeClaim): boolean {
  const ref = pv.spec?.claimRef;
  if (ref === undefined) return false;
  if (ref.namespace !== pvc.metadata?.namespace || ref.name !== pvc.metadata?.name) return false;
  return !ref.uid || ref.uid === pvc.metadata?.uid;
}

function satisfies(pv: PersistentVolume, pvc: PersistentVolumeClaim): boolean {
  if (pv.metadata?.deletionTimestamp) return false;
  if (storageClassOf(pv) !== storageClassOf(pvc)) return false;
  if ((pv.spec?.volumeMode ?? 'Filesystem') !== (pvc.spec?.volumeMode ?? 'Filesystem')) return false;
  const modes = pv.spec?.accessModes ?? [];
  if (!(pvc.spec?.accessModes ?? []).every((m) => modes.includes(m))) return false;
  const want = pvc.spec?.resources?.requests?.storage;
  const have = pv.spec?.capacity?.storage;
  if (want === undefined || have === undefined || compareQuantities(have, want) < 0) return false;
  // A claim without a selector takes any volume (a nil selector matches nothing elsewhere).
  return pvc.spec?.selector === undefined || fromLabelSelector(pvc.spec.selector).matches(pv.metadata?.labels);
}

/** The volume the claim should bind to, or undefined: pre-bound first, then the smallest free match. */
export function findMatchingVolume(
  pvc: PersistentVolumeClaim,
  volumes: readonly PersistentVolume[],
): PersistentVolume | undefined {
  const preBound = volumes.find((pv) => claimRefMatches(pv, pvc) && satisfies(pv, pvc));
  if (preBound !== undefined) return preBound;
  let best: PersistentVolume | undefined;
  for (const pv of volumes) {
    if (pv.spec?.claimRef !== undefined || !satisfies(pv, pvc)) continue;
    if (best === undefined || compareQuantities(pv.spec!.capacity!.storage!, best.spec!.capacity!.storage!) < 0)
      best = pv;
  }
  return best;
}

/** A volume's phase from its claimRef and the claim it names (upstream's syncVolume): Available, Bound or Released. */
export function volumePhase(pv: PersistentVolume, claim: PersistentVolumeClaim | undefined): string {
  const ref = pv.spec?.claimRef;
  if (ref === undefined) return 'Available';
  if (claim === undefined) return ref.uid ? 'Released' : 'Available';
  if (ref.uid && ref.uid !== claim.metadata?.uid) return 'Released';
  return claim.spec?.volumeName === pv.metadata?.name ? 'Bound' : 'Available';
}
