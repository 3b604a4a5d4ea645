/** coordination.k8s.io/v1 Lease. Upstream's JSON names; all of LeaseSpec is omitempty. */
import type { KubeObject } from '../types.js';

/** coordination/v1 LeaseSpec; the times are metav1.MicroTime. */
export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/** coordination/v1 Lease: node heartbeats and leader election. */
export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

/** The namespace of node heartbeat Leases (v1.NamespaceNodeLease). */
export const NAMESPACE_NODE_LEASE = 'kube-node-lease';
