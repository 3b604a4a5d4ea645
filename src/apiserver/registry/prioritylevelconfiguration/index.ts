/** PriorityLevelConfigurations (flowcontrol.apiserver.k8s.io/v1): the scheme's defaulting and validation. */
import type { ResourceDefinition } from '../resource.js';
import { priorityLevelConfigurationTable } from './table.js';
import { genericStrategy } from '../strategy.js';

/** The prioritylevelconfigurations registry entry; like upstream's strategy, spec changes bump the generation. */
export const priorityLevelConfigurations: ResourceDefinition = {
  group: 'flowcontrol.apiserver.k8s.io',
  resource: 'prioritylevelconfigurations',
  table: priorityLevelConfigurationTable,
  strategy: (info) => genericStrategy(info, { tracksGeneration: true }),
};
