/**
 * Upstream's node rules (bootstrappolicy.NodeRules, as of 1.33 with its default feature gates): what a
 * kubelet needs. They are the `system:node` ClusterRole's rules, which upstream binds to no one, and the
 * Node authorizer's static rules for the requests it does not subdivide. The Node authorizer narrows
 * reads of Secrets, ConfigMaps, PVCs and PVs to the objects its pods reference, and NodeRestriction
 * admission narrows the writes to the node's own objects.
 */
import type { Rule } from './rules.js';

const rule = (verbs: string[], apiGroups: string[], resources: string[]): Rule => ({ apiGroups, resources, verbs });
const READ = ['get', 'list', 'watch'];

/** The kubelet's rules, in upstream's order. */
export const NODE_RULES: readonly Rule[] = [
  // Checking API access; these creates change nothing.
  rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
  rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews', 'localsubjectaccessreviews']),
  // Services for pods' environment variables.
  rule(READ, [''], ['services']),
  // Registering and reporting its Node.
  rule(['create', 'get', 'list', 'watch'], [''], ['nodes']),
  rule(['update', 'patch'], [''], ['nodes/status']),
  rule(['update', 'patch'], [''], ['nodes']),
  rule(['create', 'update', 'patch'], [''], ['events']),
  rule(READ, [''], ['pods']),
  // Mirror pods, its pods' status, and evictions of its pods.
  rule(['create', 'delete'], [''], ['pods']),
  rule(['update', 'patch'], [''], ['pods/status']),
  rule(['create'], [''], ['pods/eviction']),
  // What its pods mount and read.
  rule(READ, [''], ['secrets', 'configmaps']),
  rule(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
  rule(['get'], [''], ['endpoints']),
  // Its client certificate: a CSR, and watching it be signed.
  rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
  rule(['get', 'create', 'update', 'patch', 'delete'], ['coordination.k8s.io'], ['leases']),
  rule(['get'], ['storage.k8s.io'], ['volumeattachments']),
  // Tokens for its pods' ServiceAccounts.
  rule(['create'], [''], ['serviceaccounts/token']),
  rule(['get', 'update', 'patch'], [''], ['persistentvolumeclaims/status']),
  rule(['get', 'watch', 'list'], ['storage.k8s.io'], ['csidrivers']),
  rule(['get', 'create', 'update', 'patch', 'delete'], ['storage.k8s.io'], ['csinodes']),
  rule(READ, ['node.k8s.io'], ['runtimeclasses']),
];
