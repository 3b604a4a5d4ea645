/** ReplicaSets (apps/v1): spec and status always serialize, generation tracks spec; with the scale subresource. */
import type { ResourceDefinition } from '../resource.js';
import { handleScale } from '../scale.js';
import { genericStrategy } from '../strategy.js';
import { replicaSetTable } from './table.js';

/** The replicasets registry entry. */
export const replicaSets: ResourceDefinition = {
  group: 'apps',
  resource: 'replicasets',
  table: replicaSetTable,
  strategy: (info) => genericStrategy(info, { alwaysHasSpec: true, alwaysHasStatus: true, tracksGeneration: true }),
  subresources: { scale: handleScale },
};
