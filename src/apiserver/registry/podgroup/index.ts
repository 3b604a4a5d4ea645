/** PodGroups (scheduling.x-k8s.io/v1alpha1, scheduler-plugins' gang scheduling): spec writes keep status. */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';

/** The podgroups registry entry. */
export const podGroups: ResourceDefinition = {
  group: 'scheduling.x-k8s.io',
  resource: 'podgroups',
  strategy: (info) => genericStrategy(info),
};
