/** ControllerRevisions (apps/v1): immutable data, no spec or status, no generation, like upstream's strategy. */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { controllerRevisionTable } from './table.js';

/** The controllerrevisions registry entry. */
export const controllerRevisions: ResourceDefinition = {
  group: 'apps',
  resource: 'controllerrevisions',
  table: controllerRevisionTable,
  strategy: (info) => genericStrategy(info),
};
