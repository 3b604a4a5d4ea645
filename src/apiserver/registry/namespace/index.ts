/**
 * Namespaces (v1), like upstream's namespaceStrategy: a create sets the
 * `kubernetes` finalizer and phase Active; spec.finalizers change only through
 * the finalize subresource and status only through the lifecycle; a delete
 * waits for spec.finalizers and marks the namespace Terminating.
 */
import { prepareNamespaceForCreate } from '../../../api/index.js';
import type { Obj } from '../../object.js';
import type { ResourceDefinition } from '../resource.js';
import { handleFinalize } from './finalize.js';
import { genericStrategy } from '../strategy.js';
import { namespaceTable } from './table.js';

/** The namespaces registry entry. */
export const namespaces: ResourceDefinition = {
  group: '',
  resource: 'namespaces',
  table: namespaceTable,
  strategy: (info) =>
    genericStrategy(info, {
      alwaysHasSpec: true,
      alwaysHasStatus: true,
      keepsStatusOnCreate: true,
      prepareForCreate: (o) => prepareNamespaceForCreate(o),
      pendingFinalizers: (o) => ((o.spec as Obj | undefined)?.finalizers as string[] | undefined) ?? [],
      markDeleting: (o) => void (o.status = { ...(o.status as Obj | undefined), phase: 'Terminating' }),
      prepareForUpdate: (o, old) => {
        // spec.finalizers change only through /finalize; status.phase only through the lifecycle.
        o.spec = { ...(o.spec as Obj | undefined), finalizers: (old.spec as Obj | undefined)?.finalizers ?? [] };
        if (old.status !== undefined) o.status = old.status;
      },
    }),
  subresources: { finalize: handleFinalize },
};
