/** Pods (v1): the pod strategy, with the binding and eviction subresources. */
import type { ResourceDefinition } from '../resource.js';
import { handleBinding } from './binding.js';
import { handleEviction } from './eviction.js';
import { podStrategy } from './strategy.js';
import { podTable } from './table.js';

/** The pods registry entry. */
export const pods: ResourceDefinition = {
  group: '',
  resource: 'pods',
  table: podTable,
  strategy: podStrategy,
  subresources: { binding: handleBinding, eviction: handleEviction },
};
