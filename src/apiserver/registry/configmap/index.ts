/** ConfigMaps (v1): the scheme's defaulting and validation, nothing of their own. */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';

/** The configmaps registry entry. */
export const configMaps: ResourceDefinition = {
  group: '',
  resource: 'configmaps',
  strategy: (info) => genericStrategy(info),
};
