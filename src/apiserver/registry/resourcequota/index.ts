/** ResourceQuotas (v1): spec on the main resource, status (hard and used) through /status, as upstream's strategy. */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { resourceQuotaTable } from './table.js';

/** The resourcequotas registry entry. */
export const resourceQuotas: ResourceDefinition = {
  group: '',
  resource: 'resourcequotas',
  table: resourceQuotaTable,
  strategy: (info) => genericStrategy(info, { alwaysHasSpec: true, alwaysHasStatus: true }),
};
