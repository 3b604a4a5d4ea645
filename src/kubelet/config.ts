/**
 * The hollow kubelet's configuration, like upstream's KubeletConfiguration
 * (the fields that shape API load) plus the simulated machine: its size,
 * zone, images, pod start-up latency and how long a Job's pod runs.
 */
import type { Taint } from '../api/index.js';

/** How a kubelet proves it is alive: upstream's Lease (default), or pre-1.14 full status writes. */
export type HeartbeatMode = 'lease' | 'status';

/** Settings shared by every kubelet of a fleet; upstream's defaults. */
export interface KubeletSettings {
  /** --node-status-update-frequency: how often status is computed (10 s). */
  nodeStatusUpdateFrequencyMs: number;
  /** --node-status-report-frequency: an unchanged status is still patched this often (5 min). */
  nodeStatusReportFrequencyMs: number;
  /** --node-lease-duration-seconds (40); the lease is renewed every quarter of it, like upstream. */
  nodeLeaseDurationSeconds: number;
  heartbeat: HeartbeatMode;
  /** --max-pods (110). */
  maxPods: number;
  /** Machine size: cores and bytes. */
  cpuCores: number;
  memoryBytes: number;
  gpus: number;
  /** Images in the node's status (upstream's --node-status-max-images is 50). */
  images: number;
  /** --register-with-taints. */
  taints: Taint[];
  /** --node-labels. */
  labels: Record<string, string>;
  zones: number;
  instanceType: string;
  /** Pod start-up latency: median and 99th percentile, in ms (log-normal). */
  podStartupP50Ms: number;
  podStartupP99Ms: number;
  /** How long a pod owned by a Job runs before it succeeds. */
  jobPodRuntimeMs: number;
}

/** Upstream's kubelet defaults and a modest simulated machine. */
export const DEFAULT_SETTINGS: KubeletSettings = {
  nodeStatusUpdateFrequencyMs: 10_000,
  nodeStatusReportFrequencyMs: 5 * 60_000,
  nodeLeaseDurationSeconds: 40,
  heartbeat: 'lease',
  maxPods: 110,
  cpuCores: 8,
  memoryBytes: 32 * 1024 ** 3,
  gpus: 0,
  images: 50,
  taints: [],
  labels: {},
  zones: 3,
  instanceType: 'kscale-hollow-8c32g',
  podStartupP50Ms: 1000,
  podStartupP99Ms: 3000,
  jobPodRuntimeMs: 30_000,
};

/** One node's identity inside a fleet: name, zone, addresses and pod CIDR, all derived from its index. */
export interface NodeIdentity {
  index: number;
  name: string;
  zone: string;
  /** InternalIP, a loopback address 127.1.0.1 onwards by index, where the fleet serves this node's kubelet API. */
  internalIP: string;
  /** The kubelet API port (daemonEndpoints); upstream's 10250 unless the fleet bound another. */
  kubeletPort?: number;
  /** A /24 from 10.64.0.0/10 by index (16,384 nodes before it wraps). */
  podCIDR: string;
}

/** The identity of node `index` of a fleet with this name prefix. */
export function nodeIdentity(prefix: string, index: number, zones: number): NodeIdentity {
  const n = index + 1;
  const block = index % 16_384;
  return {
    index,
    name: `${prefix}${index}`,
    zone: zoneName(index % Math.max(1, zones)),
    internalIP: `127.${1 + ((n >> 16) & 127)}.${(n >> 8) & 255}.${n & 255}`,
    podCIDR: `10.${64 + (block >> 8)}.${block & 255}.0/24`,
  };
}

/** zone-a, zone-b, …, zone-z, zone-aa, … */
export function zoneName(i: number): string {
  let s = '';
  let k = i;
  do {
    s = String.fromCharCode(97 + (k % 26)) + s;
    k = Math.floor(k / 26) - 1;
  } while (k >= 0);
  return `zone-${s}`;
}

/** Parses upstream's --register-with-taints list: key[=value]:Effect, comma-separated. */
export function parseTaints(text: string): Taint[] {
  if (text.trim() === '') return [];
  return text.split(',').map((t) => {
    const m = /^([^=:]+)(?:=([^:]*))?:(NoSchedule|PreferNoSchedule|NoExecute)$/.exec(t.trim());
    if (m === null) throw new Error(`invalid taint "${t}": want key[=value]:NoSchedule|PreferNoSchedule|NoExecute`);
    return { key: m[1]!, ...(m[2] !== undefined && m[2] !== '' ? { value: m[2] } : {}), effect: m[3]! };
  });
}

/** Parses upstream's --node-labels list: key=value, comma-separated. */
export function parseLabels(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kv of text.split(',')) {
    if (kv.trim() === '') continue;
    const i = kv.indexOf('=');
    if (i <= 0) throw new Error(`invalid label "${kv}": want key=value`);
    out[kv.slice(0, i).trim()] = kv.slice(i + 1).trim();
  }
  return out;
}
