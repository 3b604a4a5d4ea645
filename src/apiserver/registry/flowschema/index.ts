/** FlowSchemas (flowcontrol.apiserver.k8s.io/v1): the scheme's defaulting and validation, spec and status apart. */
import type { ResourceDefinition } from '../resource.js';
import { flowSchemaTable } from './table.js';
import { genericStrategy } from '../strategy.js';

/** The flowschemas registry entry; like upstream's strategy, spec changes bump the generation. */
export const flowSchemas: ResourceDefinition = {
  group: 'flowcontrol.apiserver.k8s.io',
  resource: 'flowschemas',
  table: flowSchemaTable,
  strategy: (info) => genericStrategy(info, { tracksGeneration: true }),
};
