/** DaemonSets (apps/v1): spec and status always serialize, generation tracks spec, status has its own subresource. */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { daemonSetTable } from './table.js';

/** The daemonsets registry entry. */
export const daemonSets: ResourceDefinition = {
  group: 'apps',
  resource: 'daemonsets',
  table: daemonSetTable,
  strategy: (info) => genericStrategy(info, { alwaysHasSpec: true, alwaysHasStatus: true, tracksGeneration: true }),
};
