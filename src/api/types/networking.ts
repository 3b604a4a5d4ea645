/** networking.k8s.io/v1 NetworkPolicy. Upstream's JSON names; optional where upstream is omitempty. */
import type { KubeObject, LabelSelector } from '../types.js';

/** networking/v1 NetworkPolicyPort: a port number or name (and an endPort for a range). */
export interface NetworkPolicyPort {
  protocol?: string;
  port?: number | string;
  endPort?: number;
}

/** networking/v1 IPBlock. */
export interface IPBlock {
  cidr: string;
  except?: string[];
}

/** networking/v1 NetworkPolicyPeer: pods, namespaces, or an IP block. */
export interface NetworkPolicyPeer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: IPBlock;
}

/** networking/v1 NetworkPolicySpec. */
export interface NetworkPolicySpec {
  podSelector?: LabelSelector;
  ingress?: { ports?: NetworkPolicyPort[]; from?: NetworkPolicyPeer[] }[];
  egress?: { ports?: NetworkPolicyPort[]; to?: NetworkPolicyPeer[] }[];
  /** Ingress and/or Egress. */
  policyTypes?: string[];
}

/** networking/v1 NetworkPolicy. */
export interface NetworkPolicy extends KubeObject {
  spec?: NetworkPolicySpec;
}
