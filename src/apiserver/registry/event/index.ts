/** Events (v1): created on update like upstream's eventStrategy, and expire after --event-ttl. */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { eventTable } from './table.js';

/** The events registry entry. */
export const events: ResourceDefinition = {
  group: '',
  resource: 'events',
  table: eventTable,
  strategy: (info, cfg) => genericStrategy(info, { allowCreateOnUpdate: true, ttlSeconds: () => cfg.eventTTLSeconds }),
};
