/**
 * Validation for v1 PersistentVolume and PersistentVolumeClaim and
 * storage.k8s.io/v1 StorageClass, like upstream's ValidatePersistentVolume,
 * ValidatePersistentVolumeClaim(Update) and ValidateStorageClass(Update).
 */
import { isDNS1123Subdomain, isQualifiedName, nameIsDNSSubdomain, nameIsPathSegment } from '../meta.js';
import { compareQuantities, isQuantity, QUANTITY_FORMAT_ERROR } from '../quantity.js';
import { isObject, type KubeObject } from '../types.js';
import { validateLabelSelector } from './common.js';
import {
  child,
  forbidden,
  fromMessages,
  immutable,
  invalidValue,
  key,
  notSupported,
  required,
  type ErrorList,
} from './field.js';
import { validateObjectMeta } from './objectmeta.js';
import { semanticEqual } from './semantic.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isObject(v) ? v : {});

/** The access modes upstream supports, in its print order. */
export const ACCESS_MODES = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'];
const VOLUME_MODES = ['Block', 'Filesystem'];
const PV_RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];
const SC_RECLAIM_POLICIES = ['Delete', 'Retain'];
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];
/** The PersistentVolumeSource members a PV may name (exactly one). */
export const PV_SOURCES = [
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'hostPath',
  'glusterfs',
  'nfs',
  'rbd',
  'iscsi',
  'cinder',
  'cephfs',
  'fc',
  'flocker',
  'flexVolume',
  'azureFile',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'portworxVolume',
  'scaleIO',
  'local',
  'storageos',
  'csi',
];

function validateAccessModes(modes: unknown, path: string, detail: string): ErrorList {
  const list = Array.isArray(modes) ? (modes as unknown[]) : [];
  if (!list.length) return [required(path, detail)];
  const errs: ErrorList = [];
  for (const m of list) if (!ACCESS_MODES.includes(m as string)) errs.push(notSupported(path, m, ACCESS_MODES));
  if (list.includes('ReadWriteOncePod') && list.length > 1)
    errs.push(forbidden(path, 'may not use ReadWriteOncePod with other access modes'));
  return errs;
}

function validateStorageQuantity(q: unknown, path: string): ErrorList {
  if (!isQuantity(q)) return [invalidValue(path, q, QUANTITY_FORMAT_ERROR)];
  return compareQuantities(q as string, 0) > 0 ? [] : [invalidValue(path, q, 'must be greater than zero')];
}

function validateClassAndMode(spec: Obj, path: string): ErrorList {
  const errs: ErrorList = [];
  const cls = spec.storageClassName;
  if (typeof cls === 'string' && cls !== '')
    errs.push(...fromMessages(child(path, 'storageClassName'), cls, isDNS1123Subdomain(cls)));
  if (spec.volumeMode !== undefined && !VOLUME_MODES.includes(spec.volumeMode as string))
    errs.push(notSupported(child(path, 'volumeMode'), spec.volumeMode, VOLUME_MODES));
  return errs;
}

/** Validates a PersistentVolume: access modes, a storage capacity, exactly one volume source, known policies. */
export function validatePersistentVolume(pv: KubeObject): ErrorList {
  const errs = validateObjectMeta(pv.metadata, false, nameIsPathSegment);
  const spec = obj(pv.spec);
  errs.push(...validateAccessModes(spec.accessModes, 'spec.accessModes', ''));
  const capacity = obj(spec.capacity);
  if (!Object.keys(capacity).length) errs.push(required('spec.capacity'));
  else if (!('storage' in capacity) || Object.keys(capacity).length > 1)
    errs.push(notSupported('spec.capacity', capacity, ['storage']));
  for (const [r, q] of Object.entries(capacity)) errs.push(...validateStorageQuantity(q, key('spec.capacity', r)));
  const policy = spec.persistentVolumeReclaimPolicy;
  if (policy !== undefined && !PV_RECLAIM_POLICIES.includes(policy as string))
    errs.push(notSupported('spec.persistentVolumeReclaimPolicy', policy, PV_RECLAIM_POLICIES));
  errs.push(...validateClassAndMode(spec, 'spec'));
  const sources = PV_SOURCES.filter((s) => spec[s] !== undefined && spec[s] !== null);
  if (!sources.length) errs.push(required('spec', 'must specify a volume type'));
  else if (sources.length > 1) errs.push(forbidden(`spec.${sources[1]}`, 'may not specify more than 1 volume type'));
  return errs;
}

/** PersistentVolume update: the volume source and volumeMode are fixed. */
export function validatePersistentVolumeUpdate(pv: KubeObject, old: KubeObject): ErrorList {
  const spec = obj(pv.spec);
  const was = obj(old.spec);
  const errs: ErrorList = [];
  const source = (s: Obj): Obj =>
    Object.fromEntries(PV_SOURCES.filter((k) => s[k] !== undefined).map((k) => [k, s[k]]));
  if (!semanticEqual(source(spec), source(was)))
    errs.push(forbidden('spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after creation'));
  if ((spec.volumeMode ?? '') !== (was.volumeMode ?? '')) errs.push(immutable('volumeMode', spec.volumeMode));
  if (was.nodeAffinity !== undefined && !semanticEqual(spec.nodeAffinity, was.nodeAffinity))
    errs.push(immutable('nodeAffinity.required', obj(spec.nodeAffinity).required));
  return errs;
}

/** Validates a PersistentVolumeClaim: access modes, a positive storage request, class name and selector. */
export function validatePersistentVolumeClaim(pvc: KubeObject): ErrorList {
  const errs = validateObjectMeta(pvc.metadata, true, nameIsDNSSubdomain);
  const spec = obj(pvc.spec);
  errs.push(...validateAccessModes(spec.accessModes, 'spec.accessModes', 'at least 1 access mode is required'));
  if (spec.selector !== undefined) errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const storage = obj(obj(spec.resources).requests).storage;
  if (storage === undefined) errs.push(required('spec.resources[storage]'));
  else errs.push(...validateStorageQuantity(storage, 'spec.resources[storage]'));
  errs.push(...validateClassAndMode(spec, 'spec'));
  return errs;
}

/**
 * PersistentVolumeClaim update, as upstream: the spec is immutable except that volumeName may be set once,
 * storageClassName may be set where it was unset, and a bound claim's storage request may grow.
 */
export function validatePersistentVolumeClaimUpdate(pvc: KubeObject, old: KubeObject): ErrorList {
  const spec = obj(pvc.spec);
  const was = obj(old.spec);
  const cmpNew: Obj = { ...spec };
  const cmpOld: Obj = { ...was };
  if (!was.volumeName) cmpOld.volumeName = spec.volumeName;
  if (was.storageClassName === undefined || was.storageClassName === null)
    cmpOld.storageClassName = spec.storageClassName;
  const newSize = obj(obj(spec.resources).requests).storage;
  const oldSize = obj(obj(was.resources).requests).storage;
  if (obj(pvc.status).phase === 'Bound') {
    const res = obj(spec.resources);
    cmpNew.resources = { ...res, requests: { ...obj(res.requests), storage: oldSize } };
  }
  const errs: ErrorList = [];
  if (!semanticEqual(cmpNew, cmpOld))
    errs.push(
      forbidden(
        'spec',
        'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
      ),
    );
  if (isQuantity(newSize) && isQuantity(oldSize) && compareQuantities(newSize as string, oldSize as string) < 0)
    errs.push(forbidden('spec.resources.requests.storage', 'field can not be less than previous value'));
  return errs;
}

/** Validates a StorageClass: a qualified provisioner name and known reclaim and binding modes. */
export function validateStorageClass(sc: KubeObject): ErrorList {
  const errs = validateObjectMeta(sc.metadata, false, nameIsDNSSubdomain);
  const provisioner = sc.provisioner;
  if (typeof provisioner !== 'string' || provisioner === '') errs.push(required('provisioner'));
  else errs.push(...fromMessages('provisioner', provisioner, isQualifiedName(provisioner.toLowerCase())));
  if (sc.reclaimPolicy !== undefined && !SC_RECLAIM_POLICIES.includes(sc.reclaimPolicy as string))
    errs.push(notSupported('reclaimPolicy', sc.reclaimPolicy, SC_RECLAIM_POLICIES));
  if (sc.volumeBindingMode === undefined) errs.push(required('volumeBindingMode'));
  else if (!BINDING_MODES.includes(sc.volumeBindingMode as string))
    errs.push(notSupported('volumeBindingMode', sc.volumeBindingMode, BINDING_MODES));
  return errs;
}

/** StorageClass update: parameters, provisioner, reclaimPolicy and volumeBindingMode are fixed. */
export function validateStorageClassUpdate(sc: KubeObject, old: KubeObject): ErrorList {
  const errs: ErrorList = [];
  if (!semanticEqual(sc.parameters ?? {}, old.parameters ?? {}))
    errs.push(forbidden('parameters', 'updates to parameters are forbidden.'));
  if (sc.provisioner !== old.provisioner) errs.push(forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if (sc.reclaimPolicy !== old.reclaimPolicy)
    errs.push(forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  if (sc.volumeBindingMode !== old.volumeBindingMode) errs.push(immutable('volumeBindingMode', sc.volumeBindingMode));
  return errs;
}
