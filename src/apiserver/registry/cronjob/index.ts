/** CronJobs (batch/v1): spec and status always serialize, generation tracks spec, like upstream's cronJobStrategy. */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { cronJobTable } from './table.js';

/** The cronjobs registry entry. */
export const cronJobs: ResourceDefinition = {
  group: 'batch',
  resource: 'cronjobs',
  table: cronJobTable,
  strategy: (info) => genericStrategy(info, { alwaysHasSpec: true, alwaysHasStatus: true, tracksGeneration: true }),
};
