/**
 * The shapes of core/v1 and coordination/v1 objects the node controllers
 * read and write. Objects stay plain JSON; only the fields used are named.
 */
import type { KubeObject } from '../../client/index.js';

/** v1.Taint; timeAdded is written for NoExecute taints only. */
export interface Taint {
  key: string;
  value?: string;
  /** NoSchedule, PreferNoSchedule or NoExecute. */
  effect: string;
  timeAdded?: string;
}

/** v1.Toleration; no tolerationSeconds means tolerate forever. */
export interface Toleration {
  key?: string;
  /** Exists, or Equal (the default). */
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number | null;
}

/** v1.NodeCondition and v1.PodCondition alike. */
export interface Condition {
  type: string;
  /** True, False or Unknown. */
  status: string;
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string | null;
  lastProbeTime?: string | null;
  lastTransitionTime?: string | null;
}

/** v1.Node. */
export interface Node extends KubeObject {
  spec?: { taints?: Taint[]; unschedulable?: boolean; [k: string]: unknown };
  status?: { conditions?: Condition[]; [k: string]: unknown };
}

/** v1.Pod. */
export interface Pod extends KubeObject {
  spec?: { nodeName?: string; tolerations?: Toleration[]; [k: string]: unknown };
  status?: { phase?: string; conditions?: Condition[]; [k: string]: unknown };
}

/** coordination/v1 Lease, as kubelets renew it in kube-node-lease. */
export interface Lease extends KubeObject {
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string | null; [k: string]: unknown };
}

/** The namespace of node heartbeat Leases (v1.NamespaceNodeLease). */
export const NAMESPACE_NODE_LEASE = 'kube-node-lease';

/** A metav1.Time (RFC 3339, second precision) for `ms` since the epoch. */
export function metaTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A metav1.MicroTime (RFC 3339 with microseconds) for `ms` since the epoch. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

/** Milliseconds since the epoch of a metav1.Time or MicroTime; undefined when absent or malformed. */
export function parseTime(t: string | null | undefined): number | undefined {
  if (t === undefined || t === null || t === '') return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

/** A deep copy of a JSON object, like the generated DeepCopy. */
export function deepCopy<T>(obj: T): T {
  return structuredClone(obj);
}
