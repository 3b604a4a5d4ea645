/** StatefulSets (apps/v1): spec and status always serialize, generation tracks spec; with the scale subresource. */
import type { ResourceDefinition } from '../resource.js';
import { handleScale } from '../scale.js';
import { genericStrategy } from '../strategy.js';
import { statefulSetTable } from './table.js';

/** The statefulsets registry entry. */
export const statefulSets: ResourceDefinition = {
  group: 'apps',
  resource: 'statefulsets',
  table: statefulSetTable,
  strategy: (info) => genericStrategy(info, { alwaysHasSpec: true, alwaysHasStatus: true, tracksGeneration: true }),
  subresources: { scale: handleScale },
};
