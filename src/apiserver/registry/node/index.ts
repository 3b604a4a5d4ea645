/** Nodes (v1): like upstream's nodeStrategy.PrepareForCreate, a create keeps its status (the kubelet registers with it). */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { nodeTable } from './table.js';

/** The nodes registry entry. */
export const nodes: ResourceDefinition = {
  group: '',
  resource: 'nodes',
  table: nodeTable,
  strategy: (info) => genericStrategy(info, { alwaysHasSpec: true, alwaysHasStatus: true, keepsStatusOnCreate: true }),
};
