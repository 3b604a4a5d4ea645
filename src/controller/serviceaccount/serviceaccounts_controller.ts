/**
 * The serviceaccount controller, like pkg/controller/serviceaccount's
 * ServiceAccountsController: every namespace that is not terminating has a
 * `default` ServiceAccount, created again when it is deleted. (kscale's API
 * server also creates it when a namespace is created; this controller keeps
 * it there.)
 */
import { isAlreadyExistsError, isNotFoundError, RESOURCES, StatusError, type KubeObject } from '../../client/index.js';
import type { ControllerContext } from '../controller_context.js';
import { PerNamespaceObjectController } from '../controllerutil/index.js';

/** The controller's name for --controllers (upstream's names.ServiceAccountController). */
export const SERVICE_ACCOUNT_CONTROLLER = 'serviceaccount-controller';
/** The ServiceAccount every namespace has. */
export const DEFAULT_SERVICE_ACCOUNT = 'default';

/** Builds the serviceaccount controller. */
export function newServiceAccountsController(ctx: ControllerContext): PerNamespaceObjectController<KubeObject> {
  const serviceAccounts = ctx.client.resource(RESOURCES.serviceaccounts);
  return new PerNamespaceObjectController(
    ctx,
    SERVICE_ACCOUNT_CONTROLLER,
    RESOURCES.serviceaccounts,
    DEFAULT_SERVICE_ACCOUNT,
    async (namespace, current) => {
      if (current !== undefined) return;
      try {
        await serviceAccounts.create(
          { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace } },
          { namespace },
        );
      } catch (err) {
        // Made meanwhile (the API server makes it too), or the namespace is going: nothing to do, as upstream.
        if (
          !isAlreadyExistsError(err) &&
          !isNotFoundError(err) &&
          !(err instanceof StatusError && err.status.code === 403)
        )
          throw err;
      }
    },
  );
}
