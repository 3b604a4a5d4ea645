/** StorageClasses (storage.k8s.io/v1): the scheme's defaulting (reclaim and binding modes) and validation. */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { storageClassTable } from './table.js';

/** The storageclasses registry entry. */
export const storageClasses: ResourceDefinition = {
  group: 'storage.k8s.io',
  resource: 'storageclasses',
  table: storageClassTable,
  strategy: (info) => genericStrategy(info),
};
