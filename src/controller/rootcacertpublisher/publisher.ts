/**
 * The root-ca-cert-publisher controller, like
 * pkg/controller/certificates/rootcacertpublisher: every namespace that is
 * not terminating gets the ConfigMap `kube-root-ca.crt` whose `ca.crt` is the
 * CA bundle that verifies the API server, and it is put back when deleted or
 * changed.
 */
import {
  isAlreadyExistsError,
  isNotFoundError,
  RateLimitingQueue,
  RESOURCES,
  runWorkers,
  unwrapDeleted,
  type ClientLogger,
  type Lister,
  type ResourceClient,
  type Workers,
} from '../../client/index.js';
import type { ConfigMap, Namespace } from '../../api/index.js';
import type { Controller, ControllerContext } from '../controller_context.js';

/** The controller's name for --controllers (upstream's names.RootCACertificatePublisherController). */
export const ROOT_CA_CERT_PUBLISHER_CONTROLLER = 'root-ca-certificate-publisher-controller';
/** The ConfigMap every namespace gets. */
export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

/** Publishes the root CA into every namespace. */
export class RootCACertPublisher implements Controller {
  readonly name = ROOT_CA_CERT_PUBLISHER_CONTROLLER;
  readonly queue: RateLimitingQueue<string>;
  private readonly nsLister: Lister<Namespace>;
  private readonly cmLister: Lister<ConfigMap>;
  private readonly configMaps: ResourceClient<ConfigMap>;
  private readonly log: ClientLogger;
  private workers: Workers | undefined;

  constructor(
    ctx: ControllerContext,
    private readonly rootCA: string | undefined = ctx.config.rootCA,
  ) {
    this.log = ctx.logger;
    this.queue = new RateLimitingQueue<string>({ clock: ctx.clock });
    const namespaces = ctx.informers.informerFor<Namespace>(RESOURCES.namespaces);
    const cms = ctx.informers.informerFor<ConfigMap>(RESOURCES.configmaps, {
      fieldSelector: `metadata.name=${ROOT_CA_CONFIGMAP}`,
    });
    this.nsLister = namespaces.lister();
    this.cmLister = cms.lister();
    this.configMaps = ctx.client.resource<ConfigMap>(RESOURCES.configmaps);
    const byNamespace = (o: Namespace | ConfigMap): void => {
      const ns =
        o.kind === 'Namespace' || o.metadata?.namespace === undefined ? o.metadata?.name : o.metadata.namespace;
      if (ns !== undefined) this.queue.add(ns);
    };
    namespaces.addEventHandler({
      onAdd: (n) => this.queue.add(n.metadata!.name!),
      onUpdate: (_o, n) => this.queue.add(n.metadata!.name!),
    });
    cms.addEventHandler({
      onUpdate: (_o, c) => byNamespace(c),
      onDelete: (c) => byNamespace(unwrapDeleted(c)),
    });
  }

  /** Starts the workers. */
  run(): void {
    if (this.rootCA === undefined) {
      this.log.info(
        {},
        'root-ca-cert-publisher: no root CA (--root-ca-file, or the kubeconfig CA): publishing nothing',
      );
      return;
    }
    this.workers = runWorkers(this.queue, 1, (ns) => this.syncNamespace(ns), {
      logger: this.log,
      name: ROOT_CA_CERT_PUBLISHER_CONTROLLER,
    });
  }

  /** Stops the workers. */
  async stop(): Promise<void> {
    await this.workers?.stop();
  }

  /** True when no namespace is queued or being synced. */
  isIdle(): boolean {
    return this.workers?.idle() ?? true;
  }

  /** Creates or repairs `kube-root-ca.crt` in `namespace`. */
  async syncNamespace(namespace: string): Promise<void> {
    const ns = this.nsLister.get(namespace);
    if (ns === undefined || ns.metadata?.deletionTimestamp !== undefined || ns.status?.phase === 'Terminating') return;
    const data = { 'ca.crt': this.rootCA! };
    const cm = this.cmLister.get(`${namespace}/${ROOT_CA_CONFIGMAP}`);
    if (cm === undefined) {
      try {
        await this.configMaps.create(
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
    await this.configMaps.update(updated, { namespace });
  }
}
