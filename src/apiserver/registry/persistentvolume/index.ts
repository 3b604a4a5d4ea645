/**
 * PersistentVolumes (v1, cluster-scoped), like upstream's persistentvolumeStrategy:
 * a create starts in phase Pending and status changes only through /status.
 */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { persistentVolumeTable } from './table.js';

/** The persistentvolumes registry entry. */
export const persistentVolumes: ResourceDefinition = {
  group: '',
  resource: 'persistentvolumes',
  table: persistentVolumeTable,
  strategy: (info) =>
    genericStrategy(info, { alwaysHasSpec: true, alwaysHasStatus: true, prepareForCreate: resetToPending }),
};

/** Upstream's PrepareForCreate for volumes and claims: the status is the system's, starting Pending. */
export function resetToPending(o: Record<string, unknown>): void {
  o.status = { phase: 'Pending' };
}
