/**
 * Helpers over PersistentVolumes, claims and StorageClasses, like upstream's
 * pkg/apis/core/v1/helper and storage/util: the class a volume or claim names
 * (the beta annotation first), access modes as kubectl prints them, and the
 * default-class annotation.
 */
import { isObject } from './types.js';

/** What the helpers read of an object (structural, so printers' and clients' object types fit). */
interface Annotated {
  metadata?: { name?: unknown; annotations?: unknown };
  spec?: unknown;
}

/** The legacy annotation naming a volume's or claim's class; it wins over spec.storageClassName. */
export const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';
/** The annotation marking the default StorageClass. */
export const IS_DEFAULT_STORAGE_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';
const BETA_IS_DEFAULT_STORAGE_CLASS_ANNOTATION = 'storageclass.beta.kubernetes.io/is-default-class';

const ABBREVIATIONS: [string, string][] = [
  ['ReadWriteOnce', 'RWO'],
  ['ReadOnlyMany', 'ROX'],
  ['ReadWriteMany', 'RWX'],
  ['ReadWriteOncePod', 'RWOP'],
];

function annotations(o: Annotated): Record<string, unknown> {
  return isObject(o.metadata?.annotations) ? o.metadata.annotations : {};
}

function specOf(o: Annotated): Record<string, unknown> {
  return isObject(o.spec) ? o.spec : {};
}

/** The class of a PV or PVC: the beta annotation if present, else spec.storageClassName, else "". */
export function storageClassOf(o: Annotated): string {
  const ann = annotations(o)[BETA_STORAGE_CLASS_ANNOTATION];
  if (typeof ann === 'string') return ann;
  const cls = specOf(o).storageClassName;
  return typeof cls === 'string' ? cls : '';
}

/** Access modes as upstream's GetAccessModesAsString prints them ("RWO,ROX"), in upstream's order. */
export function accessModesAsString(modes: unknown): string {
  const list = Array.isArray(modes) ? (modes as unknown[]) : [];
  return ABBREVIATIONS.filter(([m]) => list.includes(m))
    .map(([, a]) => a)
    .join(',');
}

/** Whether a StorageClass carries the (beta or GA) default annotation set to "true". */
export function isDefaultStorageClass(sc: Annotated): boolean {
  const a = annotations(sc);
  return a[IS_DEFAULT_STORAGE_CLASS_ANNOTATION] === 'true' || a[BETA_IS_DEFAULT_STORAGE_CLASS_ANNOTATION] === 'true';
}
