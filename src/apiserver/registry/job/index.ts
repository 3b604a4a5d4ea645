/** Jobs (batch/v1): generation tracks spec, and a create generates the selector, like upstream's jobStrategy. */
import { generateJobSelector } from '../../../api/index.js';
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { jobTable } from './table.js';

/** The jobs registry entry. */
export const jobs: ResourceDefinition = {
  group: 'batch',
  resource: 'jobs',
  table: jobTable,
  strategy: (info) =>
    genericStrategy(info, {
      alwaysHasSpec: true,
      alwaysHasStatus: true,
      tracksGeneration: true,
      prepareForCreate: (o) => generateJobSelector(o),
    }),
};
