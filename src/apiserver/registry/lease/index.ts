/** Leases (coordination.k8s.io/v1): spec always serializes, and a PUT to a missing name creates it (kubelets renew this way). */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { leaseTable } from './table.js';

/** The leases registry entry. */
export const leases: ResourceDefinition = {
  group: 'coordination.k8s.io',
  resource: 'leases',
  table: leaseTable,
  strategy: (info) => genericStrategy(info, { alwaysHasSpec: true, allowCreateOnUpdate: true }),
};
