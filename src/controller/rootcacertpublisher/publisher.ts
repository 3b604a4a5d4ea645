/**
 * The root-ca-cert-publisher controller, like
 * pkg/controller/certificates/rootcacertpublisher: every namespace that is
 * not terminating gets the ConfigMap `kube-root-ca.crt` whose `ca.crt` is the
 * CA bundle that verifies the API server, and it is put back when deleted or
 * changed.
 */
import { isAlreadyExistsError, isNotFoundError, RESOURCES, type ResourceClient } from '../../client/index.js';
import type { ConfigMap } from '../../api/index.js';
import type { ControllerContext } from '../controller_context.js';
import { PerNamespaceObjectController } from '../controllerutil/index.js';

/** The controller's name for --controllers (upstream's names.RootCACertificatePublisherController). */
export const ROOT_CA_CERT_PUBLISHER_CONTROLLER = 'root-ca-certificate-publisher-controller';
/** The ConfigMap every namespace gets. */
export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

/** Builds the publisher; without a root CA (--root-ca-file, or the kubeconfig's) it publishes nothing. */
export function newRootCACertPublisher(
  ctx: ControllerContext,
  rootCA: string | undefined = ctx.config.rootCA,
): PerNamespaceObjectController<ConfigMap> {
  const configMaps = ctx.client.resource<ConfigMap>(RESOURCES.configmaps);
  if (rootCA === undefined) ctx.logger.info({}, 'root-ca-cert-publisher: no root CA: publishing nothing');
  return new PerNamespaceObjectController<ConfigMap>(
    ctx,
    ROOT_CA_CERT_PUBLISHER_CONTROLLER,
    RESOURCES.configmaps,
    ROOT_CA_CONFIGMAP,
    (ns, cm) => (rootCA === undefined ? Promise.resolve() : publish(configMaps, ns, cm, rootCA)),
  );
}

// Creates the ConfigMap, or puts its data and description back.
async function publish(
  configMaps: ResourceClient<ConfigMap>,
  namespace: string,
  cm: ConfigMap | undefined,
  rootCA: string,
): Promise<void> {
  const data = { 'ca.crt': rootCA };
  if (cm === undefined) {
    try {
      await configMaps.create(
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: ROOT_CA_CONFIGMAP, namespace, annotations: { 'kubernetes.io/description': DESCRIPTION } },
          data,
        },
        { namespace },
      );
    } catch (err) {
      // Already there (the cache is behind), or the namespace went meanwhile.
      if (!isAlreadyExistsError(err) && !isNotFoundError(err)) throw err;
    }
    return;
  }
  const same =
    JSON.stringify(cm.data ?? {}) === JSON.stringify(data) &&
    cm.binaryData === undefined &&
    cm.metadata?.annotations?.['kubernetes.io/description'] === DESCRIPTION;
  if (same) return;
  const updated: ConfigMap = {
    ...cm,
    metadata: {
      ...cm.metadata,
      annotations: { ...cm.metadata?.annotations, 'kubernetes.io/description': DESCRIPTION },
    },
    data,
  };
  delete updated.binaryData;
  await configMaps.update(updated, { namespace });
}
