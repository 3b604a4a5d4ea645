/**
 * The objects of the informer memory benchmark: lab-shaped nodes, one owner
 * ConfigMap per app, and pods as a ReplicaSet stamps them out (labels, a
 * controller ownerReference, one pause container with requests), bound to a
 * node as the scheduler leaves them.
 */

/** Namespaces the pods are spread over. */
export const NAMESPACES = 50;

/** Apps (owners) the pods are spread over; app k lives in namespace k % NAMESPACES. */
export const APPS = 500;

/** Node j, with the labels and allocatable a hollow node reports. */
export function node(j: number): Record<string, unknown> {
  const name = `node-${j}`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'topology.kubernetes.io/zone': `zone-${j % 3}`,
      },
    },
    spec: { podCIDR: `10.${(j >> 8) & 255}.${j & 255}.0/24` },
    status: {
      capacity: { cpu: '32', memory: '128Gi', pods: '110' },
      allocatable: { cpu: '32', memory: '128Gi', pods: '110' },
    },
  };
}

/** The owner of app k's pods. */
export function owner(k: number): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `w${k}` }, data: { app: `w${k}` } };
}

/** Pod i of app i % APPS, owned by that app's ConfigMap (uid `ownerUid`), bound to one of `nodes` nodes. */
export function pod(i: number, nodes: number, ownerUid: string): Record<string, unknown> {
  const app = `w${i % APPS}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `p${i}`,
      namespace: `ns${i % NAMESPACES}`,
      labels: { app, 'kscale.io/lab': 'true', 'pod-template-hash': '5d8f7c9b6' },
      ownerReferences: [
        { apiVersion: 'v1', kind: 'ConfigMap', name: app, uid: ownerUid, controller: true, blockOwnerDeletion: true },
      ],
    },
    spec: {
      nodeName: `node-${i % nodes}`,
      containers: [
        { name: 'pause', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m', memory: '10M' } } },
      ],
      terminationGracePeriodSeconds: 1,
    },
  };
}
