/** Endpoints (v1): like upstream's endpointsStrategy, a PUT to a missing name creates it. */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';

/** The endpoints registry entry. */
export const endpoints: ResourceDefinition = {
  group: '',
  resource: 'endpoints',
  strategy: (info) => genericStrategy(info, { allowCreateOnUpdate: true }),
};
