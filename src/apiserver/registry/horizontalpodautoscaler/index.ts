/** HorizontalPodAutoscalers (autoscaling/v2): spec and status always serialize, with a status subresource. */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { horizontalPodAutoscalerTable } from './table.js';

/** The horizontalpodautoscalers registry entry. */
export const horizontalPodAutoscalers: ResourceDefinition = {
  group: 'autoscaling',
  resource: 'horizontalpodautoscalers',
  table: horizontalPodAutoscalerTable,
  strategy: (info) => genericStrategy(info, { alwaysHasSpec: true, alwaysHasStatus: true }),
};
