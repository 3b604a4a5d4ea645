/**
 * The Table columns of PersistentVolumes and their claims, with kubectl 1.33's columns (upstream's
 * printPersistentVolume and printPersistentVolumeClaim): a deleting volume or claim shows as Terminating.
 */
import { accessModesAsString, isObject, storageClassOf, type KubeObject } from '../../../api/index.js';
import { ageColumn, column, nameColumn, str, timestampSince, type ResourcePrinter } from '../printers/index.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isObject(v) ? v : {});
const UNSET = '<unset>';

function phaseOf(o: KubeObject): string {
  return o.metadata?.deletionTimestamp ? 'Terminating' : str(obj(o.status).phase);
}

function setOr(v: unknown): string {
  return typeof v === 'string' && v !== '' ? v : UNSET;
}

const CLASS_DOC = 'StorageClass of the volume.';
const VAC_DOC = 'VolumeAttributesClass of the volume.';
const MODE_DOC = 'Whether the volume is a filesystem or a raw block device.';

/** PersistentVolumes: NAME CAPACITY ACCESS MODES RECLAIM POLICY STATUS CLAIM STORAGECLASS VOLUMEATTRIBUTESCLASS REASON AGE (VOLUMEMODE wide). */
export const persistentVolumeTable: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Capacity', 'string', 'The capacity of the volume.'),
    column('Access Modes', 'string', 'The access modes of the volume.'),
    column('Reclaim Policy', 'string', 'What happens to the volume when its claim is released.'),
    column('Status', 'string', 'The phase of the volume.'),
    column('Claim', 'string', 'The claim bound to the volume.'),
    column('StorageClass', 'string', CLASS_DOC),
    column('VolumeAttributesClass', 'string', VAC_DOC),
    column('Reason', 'string', 'Why the volume is in its phase.'),
    ageColumn(),
    column('VolumeMode', 'string', MODE_DOC, { wide: true }),
  ],
  print: (pv, now) => {
    const spec = obj(pv.spec);
    const ref = obj(spec.claimRef);
    const claim = spec.claimRef ? `${str(ref.namespace)}/${str(ref.name)}` : '';
    return {
      cells: [
        str(pv.metadata?.name),
        str(obj(spec.capacity).storage),
        accessModesAsString(spec.accessModes),
        str(spec.persistentVolumeReclaimPolicy),
        phaseOf(pv),
        claim,
        storageClassOf(pv),
        setOr(spec.volumeAttributesClassName),
        str(obj(pv.status).reason),
        timestampSince(pv.metadata?.creationTimestamp, now),
        setOr(spec.volumeMode),
      ],
    };
  },
};

/** PersistentVolumeClaims: NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS VOLUMEATTRIBUTESCLASS AGE (VOLUMEMODE wide). */
export const persistentVolumeClaimTable: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Status', 'string', 'The phase of the claim.'),
    column('Volume', 'string', 'The volume bound to the claim.'),
    column('Capacity', 'string', 'The capacity of the bound volume.'),
    column('Access Modes', 'string', 'The access modes of the bound volume.'),
    column('StorageClass', 'string', CLASS_DOC),
    column('VolumeAttributesClass', 'string', VAC_DOC),
    ageColumn(),
    column('VolumeMode', 'string', MODE_DOC, { wide: true }),
  ],
  print: (pvc, now) => {
    const spec = obj(pvc.spec);
    const st = obj(pvc.status);
    // Like upstream, capacity and access modes show only once a volume is named.
    const bound = typeof spec.volumeName === 'string' && spec.volumeName !== '';
    return {
      cells: [
        str(pvc.metadata?.name),
        phaseOf(pvc),
        str(spec.volumeName),
        bound ? str(obj(st.capacity).storage) : '',
        bound ? accessModesAsString(st.accessModes) : '',
        storageClassOf(pvc),
        setOr(spec.volumeAttributesClassName),
        timestampSince(pvc.metadata?.creationTimestamp, now),
        setOr(spec.volumeMode),
      ],
    };
  },
};
