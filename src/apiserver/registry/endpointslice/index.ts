/** EndpointSlices (discovery.k8s.io/v1): the scheme's defaulting and validation. */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';

/** The endpointslices registry entry. */
export const endpointSlices: ResourceDefinition = {
  group: 'discovery.k8s.io',
  resource: 'endpointslices',
  strategy: (info) => genericStrategy(info),
};
