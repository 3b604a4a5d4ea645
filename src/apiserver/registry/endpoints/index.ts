/** Endpoints (v1): like upstream's endpointsStrategy, a PUT to a missing name creates it. */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { endpointsTable } from './table.js';

/** The endpoints registry entry. */
export const endpoints: ResourceDefinition = {
  group: '',
  resource: 'endpoints',
  table: endpointsTable,
  strategy: (info) => genericStrategy(info, { allowCreateOnUpdate: true }),
};
