/**
 * The objects a pod references, as upstream's podutil.VisitPodSecretNames and VisitPodConfigmapNames
 * (every container list, env, envFrom, image pull secrets and volume sources) and its claim names
 * (persistentVolumeClaim and generic ephemeral volumes, `<pod>-<volume>`). Shared by the Node
 * authorizer's graph and the hollow kubelet, which reads what its pods reference.
 */

type Obj = Record<string, unknown>;

const obj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' ? (v as Obj) : undefined);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? (v as unknown[]).map(obj).filter((o) => o !== undefined) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

// Volume sources whose secretRef names a Secret the kubelet reads.
const SECRET_REF_VOLUMES = ['cephfs', 'cinder', 'flexVolume', 'rbd', 'iscsi', 'scaleIO', 'storageos'];

/** The names of the Secrets, ConfigMaps and PersistentVolumeClaims a pod references (in its namespace). */
export interface PodReferencedNames {
  secrets: string[];
  configMaps: string[];
  pvcs: string[];
}

/** The Secrets, ConfigMaps and claims that a pod (typed or decoded JSON) references. */
export function podReferencedNames(pod: unknown): PodReferencedNames {
  const spec = obj(obj(pod)?.spec) ?? {};
  const podName = str(obj(obj(pod)?.metadata)?.name);
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
    if (obj(v.ephemeral) !== undefined) add(pvcs, `${podName}-${str(v.name)}`);
  }
  return { secrets: [...secrets], configMaps: [...configMaps], pvcs: [...pvcs] };
}
