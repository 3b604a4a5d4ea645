/** LimitRanges (v1): the scheme's validation, nothing of their own. */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { limitRangeTable } from './table.js';

/** The limitranges registry entry. */
export const limitRanges: ResourceDefinition = {
  group: '',
  resource: 'limitranges',
  table: limitRangeTable,
  strategy: (info) => genericStrategy(info),
};
