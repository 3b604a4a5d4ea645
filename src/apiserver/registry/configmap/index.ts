/** ConfigMaps (v1): the scheme's defaulting and validation, nothing of their own. */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { configMapTable } from './table.js';

/** The configmaps registry entry. */
export const configMaps: ResourceDefinition = {
  group: '',
  resource: 'configmaps',
  table: configMapTable,
  strategy: (info) => genericStrategy(info),
};
