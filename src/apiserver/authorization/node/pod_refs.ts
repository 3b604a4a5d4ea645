/**
 * The objects a pod references, as upstream's podutil.VisitPodSecretNames and VisitPodConfigmapNames
 * (every container list, env, envFrom, image pull secrets and volume sources) and the graph's claim
 * names (persistentVolumeClaim and generic ephemeral volumes, `<pod>-<volume>`).
 */
import type { Obj } from '../../object.js';
import type { PodRefs } from './graph.js';

/** The annotation that marks a kubelet's mirror pod (v1.MirrorPodAnnotationKey). */
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

const obj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' ? (v as Obj) : undefined);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? (v as unknown[]).map(obj).filter((o) => o !== undefined) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

// Volume sources whose secretRef names a Secret the kubelet reads.
const SECRET_REF_VOLUMES = ['cephfs', 'cinder', 'flexVolume', 'rbd', 'iscsi', 'scaleIO', 'storageos'];

/** A pod's references, or undefined while it is not bound to a node (upstream adds only bound pods). */
export function podRefs(pod: Obj): PodRefs | undefined {
  const spec = obj(pod.spec) ?? {};
  const nodeName = str(spec.nodeName);
  if (nodeName === '') return undefined;
  const m = obj(pod.metadata) ?? {};
  const secrets = new Set<string>();
  const configMaps = new Set<string>();
  const pvcs = new Set<string>();
  const add = (set: Set<string>, name: unknown): void => {
    if (typeof name === 'string' && name !== '') set.add(name);
  };
  for (const s of list(spec.imagePullSecrets)) add(secrets, s.name);
  for (const c of [...list(spec.initContainers), ...list(spec.containers), ...list(spec.ephemeralContainers)]) {
    for (const e of list(c.envFrom)) {
      add(secrets, obj(e.secretRef)?.name);
      add(configMaps, obj(e.configMapRef)?.name);
    }
    for (const e of list(c.env)) {
      const from = obj(e.valueFrom);
      add(secrets, obj(from?.secretKeyRef)?.name);
      add(configMaps, obj(from?.configMapKeyRef)?.name);
    }
  }
  for (const v of list(spec.volumes)) {
    add(secrets, obj(v.secret)?.secretName);
    add(secrets, obj(v.azureFile)?.secretName);
    add(secrets, obj(obj(v.csi)?.nodePublishSecretRef)?.name);
    for (const k of SECRET_REF_VOLUMES) add(secrets, obj(obj(v[k])?.secretRef)?.name);
    add(configMaps, obj(v.configMap)?.name);
    for (const p of list(obj(v.projected)?.sources)) {
      add(secrets, obj(p.secret)?.name);
      add(configMaps, obj(p.configMap)?.name);
    }
    add(pvcs, obj(v.persistentVolumeClaim)?.claimName);
    if (obj(v.ephemeral) !== undefined) add(pvcs, `${str(m.name)}-${str(v.name)}`);
  }
  const annotations = obj(m.annotations) ?? {};
  return {
    namespace: str(m.namespace),
    name: str(m.name),
    nodeName,
    mirror: MIRROR_POD_ANNOTATION in annotations,
    serviceAccountName: str(spec.serviceAccountName),
    secrets: [...secrets],
    configMaps: [...configMaps],
    pvcs: [...pvcs],
  };
}
