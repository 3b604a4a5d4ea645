/** Deployments (apps/v1): spec and status always serialize, generation tracks spec; with the scale subresource. */
import type { ResourceDefinition } from '../resource.js';
import { handleScale } from '../scale.js';
import { genericStrategy } from '../strategy.js';
import { deploymentTable } from './table.js';

/** The deployments registry entry. */
export const deployments: ResourceDefinition = {
  group: 'apps',
  resource: 'deployments',
  table: deploymentTable,
  strategy: (info) => genericStrategy(info, { alwaysHasSpec: true, alwaysHasStatus: true, tracksGeneration: true }),
  subresources: { scale: handleScale },
};
