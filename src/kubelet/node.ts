/**
 * The Node a hollow kubelet registers, like upstream's initialNode() in
 * kubelet_node_status.go: standard labels, capacity and allocatable, addresses,
 * nodeInfo, daemon endpoints, a pod CIDR, an images list and the first
 * conditions. Upstream's node strategy keeps status on create, so one POST
 * registers a node that is already Ready.
 */
import { createHash } from 'node:crypto';
import type { ContainerImage, Node, NodeCondition, NodeStatus } from '../api/index.js';
import type { KubeletSettings, NodeIdentity } from './config.js';

/** The kubelet version nodes report. */
export const KUBELET_VERSION = 'v1.33.0-kscale';

const imageCache = new Map<number, ContainerImage[]>();

/** `count` images, the same array for every node of a process (a fleet's nodes run the same images). */
export function hollowImages(count: number): ContainerImage[] {
  let images = imageCache.get(count);
  if (images === undefined) {
    images = [];
    for (let i = 0; i < count; i++) {
      const digest = createHash('sha256').update(`kscale-image-${i}`).digest('hex');
      const repo = `registry.k8s.io/kscale/hollow-app-${i}`;
      images.push({
        names: [`${repo}@sha256:${digest}`, `${repo}:v1.${i % 10}.0`],
        sizeBytes: 10_000_000 + ((i * 7_919_101) % 500_000_000),
      });
    }
    imageCache.set(count, images);
  }
  return images;
}

/** capacity and allocatable, like upstream's machine info minus the default eviction threshold (memory.available 100Mi). */
export function nodeResources(s: KubeletSettings): {
  capacity: Record<string, string>;
  allocatable: Record<string, string>;
} {
  const capacity: Record<string, string> = {
    cpu: String(s.cpuCores),
    memory: `${Math.floor(s.memoryBytes / 1024)}Ki`,
    pods: String(s.maxPods),
    'ephemeral-storage': '104857600Ki',
    'hugepages-1Gi': '0',
    'hugepages-2Mi': '0',
  };
  const allocatable: Record<string, string> = {
    ...capacity,
    memory: `${Math.floor(s.memoryBytes / 1024) - 102_400}Ki`,
    'ephemeral-storage': '94371840Ki',
  };
  if (s.gpus > 0) capacity['nvidia.com/gpu'] = allocatable['nvidia.com/gpu'] = String(s.gpus);
  return { capacity, allocatable };
}

/** The node's conditions as a healthy kubelet reports them, like upstream's setters.go. */
export function healthyConditions(now: string, transition = now): NodeCondition[] {
  const c = (type: string, status: 'True' | 'False', reason: string, message: string): NodeCondition => ({
    type,
    status,
    lastHeartbeatTime: now,
    lastTransitionTime: transition,
    reason,
    message,
  });
  return [
    c('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
    c('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    c('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
    c('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
  ];
}

/** The status fields other than conditions, which never change while the kubelet runs. */
export function staticNodeStatus(id: NodeIdentity, s: KubeletSettings): NodeStatus {
  const uuid = createHash('md5').update(id.name).digest('hex');
  return {
    ...nodeResources(s),
    addresses: [
      { type: 'InternalIP', address: id.internalIP },
      { type: 'Hostname', address: id.name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: id.kubeletPort ?? 10250 } },
    nodeInfo: {
      machineID: uuid,
      systemUUID: `${uuid.slice(0, 8)}-${uuid.slice(8, 12)}-${uuid.slice(12, 16)}-${uuid.slice(16, 20)}-${uuid.slice(20)}`,
      bootID: createHash('md5').update(`${id.name}/boot`).digest('hex'),
      kernelVersion: '6.1.0-kscale',
      osImage: 'kscale hollow node',
      containerRuntimeVersion: 'containerd://2.0.0-kscale',
      kubeletVersion: KUBELET_VERSION,
      kubeProxyVersion: '',
      operatingSystem: 'linux',
      architecture: 'amd64',
    },
    images: hollowImages(s.images),
  };
}

/** The Node object a kubelet POSTs when it registers. */
export function initialNode(id: NodeIdentity, s: KubeletSettings, now: string): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: id.name,
      labels: {
        'kubernetes.io/hostname': id.name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'beta.kubernetes.io/arch': 'amd64',
        'topology.kubernetes.io/zone': id.zone,
        'topology.kubernetes.io/region': 'kscale',
        'node.kubernetes.io/instance-type': s.instanceType,
        'kscale.io/hollow': 'true',
        ...s.labels,
      },
      annotations: {
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
    },
    spec: {
      podCIDR: id.podCIDR,
      podCIDRs: [id.podCIDR],
      providerID: `kscale://hollow/${id.name}`,
      ...(s.taints.length > 0 ? { taints: s.taints.map((t) => ({ ...t })) } : {}),
    },
    status: { ...staticNodeStatus(id, s), conditions: healthyConditions(now) },
  };
}
