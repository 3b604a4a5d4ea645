/**
 * PersistentVolumeClaims (v1), like upstream's persistentvolumeclaimStrategy:
 * a create starts in phase Pending, status changes only through /status, and
 * the spec is immutable but for binding and growth (validation).
 */
import { resetToPending } from '../persistentvolume/index.js';
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { persistentVolumeClaimTable } from '../persistentvolume/table.js';

/** The persistentvolumeclaims registry entry. */
export const persistentVolumeClaims: ResourceDefinition = {
  group: '',
  resource: 'persistentvolumeclaims',
  table: persistentVolumeClaimTable,
  strategy: (info) =>
    genericStrategy(info, { alwaysHasSpec: true, alwaysHasStatus: true, prepareForCreate: resetToPending }),
};
