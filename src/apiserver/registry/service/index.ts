/** Services (v1): ClusterIP and NodePort allocation (see strategy.ts). */
import type { ResourceDefinition } from '../resource.js';
import { serviceStrategy } from './strategy.js';
import { serviceTable } from './table.js';

export { serviceAllocations } from './strategy.js';

/** The services registry entry. */
export const services: ResourceDefinition = {
  group: '',
  resource: 'services',
  table: serviceTable,
  strategy: serviceStrategy,
};
