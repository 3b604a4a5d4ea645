/** NetworkPolicies (networking.k8s.io/v1): generation tracks spec, like upstream's networkPolicyStrategy. */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { networkPolicyTable } from './table.js';

/** The networkpolicies registry entry. */
export const networkPolicies: ResourceDefinition = {
  group: 'networking.k8s.io',
  resource: 'networkpolicies',
  table: networkPolicyTable,
  strategy: (info) => genericStrategy(info, { alwaysHasSpec: true, tracksGeneration: true }),
};
