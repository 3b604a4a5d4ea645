/**
 * The objects the lab creates, shaped like ClusterLoader2's load test
 * objects: a pause container with small requests, labelled by workload.
 */
import type { KubeObject } from '../client/index.js';

/** The label every lab object carries, so the lab can tell its pods apart. */
export const LAB_LABEL = 'kscale.io/lab';

/** What a workload's pods reference, like CL2's load test: a ConfigMap volume and a Secret env value, each named after the workload. */
export interface PodRefs {
  configMap?: boolean;
  secret?: boolean;
}

/** The pod template of a workload; `revision` changes on a rolling update. */
export function podTemplate(workload: string, revision: number, refs: PodRefs = {}): Record<string, unknown> {
  const container: Record<string, unknown> = {
    name: 'pause',
    image: 'registry.k8s.io/pause:3.10',
    resources: { requests: { cpu: '10m', memory: '10M' } },
  };
  const spec: Record<string, unknown> = { containers: [container], terminationGracePeriodSeconds: 1 };
  if (refs.configMap === true) {
    container.volumeMounts = [{ name: 'config', mountPath: '/etc/config' }];
    spec.volumes = [{ name: 'config', configMap: { name: workload } }];
  }
  if (refs.secret === true)
    container.env = [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: workload, key: 'token' } } }];
  return {
    metadata: {
      labels: { app: workload, [LAB_LABEL]: 'true' },
      annotations: { 'kscale.io/revision': String(revision) },
    },
    spec,
  };
}

/** A Deployment of `replicas` pods. */
export function deployment(namespace: string, name: string, replicas: number, refs: PodRefs = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels: { [LAB_LABEL]: 'true' } },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: podTemplate(name, 0, refs) },
  } as KubeObject;
}

/**
 * A StatefulSet of `replicas` pods, started in parallel like CL2's; with `claims`, each pod gets a 1Mi claim from the
 * default (hollow) StorageClass, deleted with the set.
 */
export function statefulSet(
  namespace: string,
  name: string,
  replicas: number,
  claims: boolean,
  refs: PodRefs = {},
): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace, labels: { [LAB_LABEL]: 'true' } },
    spec: {
      replicas,
      serviceName: name,
      podManagementPolicy: 'Parallel',
      selector: { matchLabels: { app: name } },
      template: podTemplate(name, 0, refs),
      ...(claims
        ? {
            volumeClaimTemplates: [
              {
                metadata: { name: 'data', labels: { [LAB_LABEL]: 'true' } },
                spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Mi' } } },
              },
            ],
            persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' },
          }
        : {}),
    },
  } as KubeObject;
}

/**
 * A DaemonSet: one pod on every node. Its rolling update replaces a tenth of the nodes' pods at a time
 * (`maxUnavailable: 10%`, the issue's DaemonSet target), where the default of one would take a node at a time.
 */
export function daemonSet(namespace: string, name: string, refs: PodRefs = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace, labels: { [LAB_LABEL]: 'true' } },
    spec: {
      selector: { matchLabels: { app: name } },
      template: podTemplate(name, 0, refs),
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%' } },
    },
  } as KubeObject;
}

/**
 * A CronJob whose Jobs are created suspended (so they run no pods, and the lab's pod count stays exact) and never
 * overlap: what it costs is the controller's schedule and one Job.
 */
export function cronJob(namespace: string, name: string, schedule: string): KubeObject {
  const t = podTemplate(name, 0) as { spec: Record<string, unknown> };
  t.spec.restartPolicy = 'Never';
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name, namespace, labels: { [LAB_LABEL]: 'true' } },
    spec: {
      schedule,
      concurrencyPolicy: 'Forbid',
      // Its Jobs carry labels of their own, without the lab's (a Job without labels takes its pod template's): the
      // lab counts the Jobs it creates itself.
      jobTemplate: { metadata: { labels: { app: name } }, spec: { suspend: true, template: t } },
    },
  } as KubeObject;
}

/** The ConfigMap a workload's pods mount. */
export function configMap(namespace: string, name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels: { [LAB_LABEL]: 'true' } },
    data: { 'config.yaml': `workload: ${name}\n` },
  } as KubeObject;
}

/** The Secret a workload's pods read an env value from. */
export function secret(namespace: string, name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace, labels: { [LAB_LABEL]: 'true' } },
    type: 'Opaque',
    stringData: { token: `${name}-token` },
  } as KubeObject;
}

/** A Job running `replicas` pods in parallel, once each. */
export function job(namespace: string, name: string, replicas: number, refs: PodRefs = {}): KubeObject {
  const t = podTemplate(name, 0, refs) as { spec: Record<string, unknown> };
  t.spec.restartPolicy = 'Never';
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace, labels: { [LAB_LABEL]: 'true' } },
    spec: { parallelism: replicas, completions: replicas, template: t },
  } as KubeObject;
}

/** A ClusterIP Service selecting a workload's pods. */
export function service(namespace: string, name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, labels: { [LAB_LABEL]: 'true' } },
    spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] },
  } as KubeObject;
}

/** A bare pod of a workload, bound to `nodeName` when given (the lab then plays the scheduler's part). */
export function pod(
  namespace: string,
  name: string,
  workload: string,
  revision: number,
  nodeName: string | undefined,
  refs: PodRefs = {},
): KubeObject {
  const t = podTemplate(workload, revision, refs) as {
    metadata: Record<string, unknown>;
    spec: Record<string, unknown>;
  };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { ...t.metadata, name, namespace },
    spec: { ...t.spec, ...(nodeName !== undefined ? { nodeName } : {}) },
  } as KubeObject;
}

/** A namespace of the lab. */
export function namespace(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { [LAB_LABEL]: 'true' } } } as KubeObject;
}
