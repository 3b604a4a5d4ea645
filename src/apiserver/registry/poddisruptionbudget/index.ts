/** PodDisruptionBudgets (policy/v1): spec and status always serialize, and generation tracks spec. */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { podDisruptionBudgetTable } from './table.js';

/** The poddisruptionbudgets registry entry. */
export const podDisruptionBudgets: ResourceDefinition = {
  group: 'policy',
  resource: 'poddisruptionbudgets',
  table: podDisruptionBudgetTable,
  strategy: (info) => genericStrategy(info, { alwaysHasSpec: true, alwaysHasStatus: true, tracksGeneration: true }),
};
