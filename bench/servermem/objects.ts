/**
 * The objects the memory benchmark writes: a lab-shaped pod (labels, owner,
 * one pause container, bound to a node), its Running status as the hollow
 * kubelet reports it, and the scheduler's Scheduled Event.
 */

/** Namespaces the objects are spread over. */
export const NAMESPACES = 50;

const ns = (i: number): string => `ns${i % NAMESPACES}`;

/** Pod i, bound to one of 2,500 nodes. */
export function pod(i: number): Record<string, unknown> {
  const app = `w${i % 500}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `p${i}`,
      namespace: ns(i),
      labels: { app, 'kscale.io/lab': 'true', 'pod-template-hash': '5d8f7c9b6' },
      annotations: { 'kscale.io/revision': '0' },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `${app}-5d8f7c9b6`,
          uid: '0b7c2f9e-1c51-4f7e-9a43-2f8b5d7c8e10',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      nodeName: `node-${i % 2500}`,
      containers: [
        { name: 'pause', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m', memory: '10M' } } },
      ],
      terminationGracePeriodSeconds: 1,
    },
  };
}

/** A merge patch of pod i's status to Running. */
export function runningStatus(i: number): Record<string, unknown> {
  const at = '2026-12-02T10:00:00Z';
  return {
    status: {
      phase: 'Running',
      hostIP: '10.0.0.1',
      podIP: `10.1.${(i >> 8) & 255}.${i & 255}`,
      startTime: at,
      conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({
        type,
        status: 'True',
        lastTransitionTime: at,
      })),
      containerStatuses: [
        {
          name: 'pause',
          ready: true,
          started: true,
          restartCount: 0,
          image: 'registry.k8s.io/pause:3.10',
          imageID: 'sha256:abc',
          containerID: `containerd://${i}`,
          state: { running: { startedAt: at } },
        },
      ],
    },
  };
}

/** The Scheduled Event of pod i. */
export function scheduledEvent(i: number): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `p${i}.18a${i}`, namespace: ns(i) },
    involvedObject: { kind: 'Pod', namespace: ns(i), name: `p${i}`, uid: 'x', apiVersion: 'v1' },
    reason: 'Scheduled',
    message: `Successfully assigned ${ns(i)}/p${i} to node-${i % 2500}`,
    source: { component: 'default-scheduler' },
    firstTimestamp: '2026-12-02T10:00:00Z',
    lastTimestamp: '2026-12-02T10:00:00Z',
    count: 1,
    type: 'Normal',
    reportingComponent: 'default-scheduler',
  };
}

/** The namespace of object i. */
export const namespaceOf = ns;
