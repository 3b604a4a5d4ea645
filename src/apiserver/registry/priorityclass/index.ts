/** PriorityClasses (scheduling.k8s.io/v1): the scheme's defaulting (preemptionPolicy) and validation. */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { priorityClassTable } from './table.js';

/** The priorityclasses registry entry. */
export const priorityClasses: ResourceDefinition = {
  group: 'scheduling.k8s.io',
  resource: 'priorityclasses',
  table: priorityClassTable,
  strategy: (info) => genericStrategy(info),
};
