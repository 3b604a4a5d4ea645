/**
 * The objects the lab creates, shaped like ClusterLoader2's load test
 * objects: a pause container with small requests, labelled by workload.
 */
import type { KubeObject } from '../client/index.js';

/** The label every lab object carries, so the lab can tell its pods apart. */
export const LAB_LABEL = 'kscale.io/lab';

/** The pod template of a workload; `revision` changes on a rolling update. */
export function podTemplate(workload: string, revision: number): Record<string, unknown> {
  return {
    metadata: {
      labels: { app: workload, [LAB_LABEL]: 'true' },
      annotations: { 'kscale.io/revision': String(revision) },
    },
    spec: {
      containers: [
        { name: 'pause', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m', memory: '10M' } } },
      ],
      terminationGracePeriodSeconds: 1,
    },
  };
}

/** A Deployment of `replicas` pods. */
export function deployment(namespace: string, name: string, replicas: number): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels: { [LAB_LABEL]: 'true' } },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: podTemplate(name, 0) },
  } as KubeObject;
}

/** A Job running `replicas` pods in parallel, once each. */
export function job(namespace: string, name: string, replicas: number): KubeObject {
  const t = podTemplate(name, 0) as { spec: Record<string, unknown> };
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
): KubeObject {
  const t = podTemplate(workload, revision) as { metadata: Record<string, unknown>; spec: Record<string, unknown> };
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
