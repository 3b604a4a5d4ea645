/** Secrets (v1): the scheme's defaulting (type Opaque) and validation. */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { secretTable } from './table.js';

/** The secrets registry entry. */
export const secrets: ResourceDefinition = {
  group: '',
  resource: 'secrets',
  table: secretTable,
  strategy: (info) => genericStrategy(info),
};
