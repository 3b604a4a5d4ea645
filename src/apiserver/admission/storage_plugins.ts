/**
 * The storage admission plugins upstream enables by default:
 * StorageObjectInUseProtection (the kubernetes.io/pvc-protection and
 * kubernetes.io/pv-protection finalizers on every new claim and volume) and
 * DefaultStorageClass (a new claim naming no class gets the default one).
 */
import { BETA_STORAGE_CLASS_ANNOTATION, isDefaultStorageClass, parseTimestamp } from '../../api/index.js';
import type { Obj } from '../object.js';
import type { GenericStore } from '../registry/store.js';
import type { AdmissionPlugin } from './chain.js';

/** The finalizer that keeps a claim until no pod uses it. */
export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';
/** The finalizer that keeps a volume until no claim is bound to it. */
export const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection';

const FINALIZER_OF: Record<string, string> = {
  persistentvolumeclaims: PVC_PROTECTION_FINALIZER,
  persistentvolumes: PV_PROTECTION_FINALIZER,
};

/** StorageObjectInUseProtection: adds the protection finalizer to every new claim and volume. */
export const storageObjectInUseProtection: AdmissionPlugin = {
  name: 'StorageObjectInUseProtection',
  admit(a) {
    const finalizer = FINALIZER_OF[a.resource];
    if (finalizer === undefined || a.operation !== 'CREATE' || a.subresource !== '' || a.object === null) return;
    const meta = (a.object.metadata ?? (a.object.metadata = {})) as Obj;
    const list = Array.isArray(meta.finalizers) ? (meta.finalizers as string[]) : [];
    if (!list.includes(finalizer)) meta.finalizers = [...list, finalizer];
  },
};

/**
 * DefaultStorageClass: a new claim with no storageClassName (nil, not "") and no beta class annotation gets the
 * default class; with several defaults, the newest wins, as upstream since 1.26.
 */
export function defaultStorageClassAdmission(classes: () => GenericStore): AdmissionPlugin {
  return {
    name: 'DefaultStorageClass',
    async admit(a) {
      if (a.resource !== 'persistentvolumeclaims' || a.operation !== 'CREATE' || a.subresource !== '') return;
      const spec = a.object?.spec as Obj | undefined;
      const annotations = (a.object?.metadata as Obj | undefined)?.annotations as Obj | undefined;
      if (spec === undefined || (spec.storageClassName !== undefined && spec.storageClassName !== null)) return;
      if (annotations?.[BETA_STORAGE_CLASS_ANNOTATION] !== undefined) return;
      const listed = await classes().objects.listObjects({ minRevision: 0 });
      const created = (o: Obj): number =>
        parseTimestamp((o.metadata as Obj).creationTimestamp as string | undefined) ?? 0;
      const defaults = listed.items
        .map((o) => o.decode() as Obj)
        .filter((o) => isDefaultStorageClass(o))
        .sort((x, y) => created(y) - created(x));
      if (defaults.length) spec.storageClassName = (defaults[0]!.metadata as Obj).name;
    },
  };
}
