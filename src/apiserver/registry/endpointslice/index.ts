/** EndpointSlices (discovery.k8s.io/v1): the scheme's defaulting and validation. */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { endpointSliceTable } from './table.js';

/** The endpointslices registry entry. */
export const endpointSlices: ResourceDefinition = {
  group: 'discovery.k8s.io',
  resource: 'endpointslices',
  table: endpointSliceTable,
  strategy: (info) => genericStrategy(info),
};
