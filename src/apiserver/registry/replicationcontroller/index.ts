/** ReplicationControllers (v1): like ReplicaSets, spec and status always serialize, generation tracks spec; with scale. */
import type { ResourceDefinition } from '../resource.js';
import { handleScale } from '../scale.js';
import { genericStrategy } from '../strategy.js';
import { replicationControllerTable } from './table.js';

/** The replicationcontrollers registry entry. */
export const replicationControllers: ResourceDefinition = {
  group: '',
  resource: 'replicationcontrollers',
  table: replicationControllerTable,
  strategy: (info) => genericStrategy(info, { alwaysHasSpec: true, alwaysHasStatus: true, tracksGeneration: true }),
  subresources: { scale: handleScale },
};
