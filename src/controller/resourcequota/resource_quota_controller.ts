/**
 * ResourceQuotaController, like pkg/controller/resourcequota: keeps each
 * quota's status (hard = spec.hard, used = what the namespace's objects
 * charge) current. A quota is synced when it is created or changed, on a full
 * resync every --resource-quota-sync-period (upstream's 5 minutes), and when
 * an object it charges for goes away (a pod deleted or turned terminal, a
 * Service or claim deleted: upstream's replenishment), so usage goes down.
 * Admission charges creates; this controller is what gives units back.
 */
import {
  metaNamespaceKeyFunc,
  RESOURCES,
  splitMetaNamespaceKey,
  unwrapDeleted,
  type RESTClient,
  type Lister,
  type ResourceClient,
  type SharedInformer,
} from '../../client/index.js';
import type { Clock } from '../../clock/index.js';
import type { ControllerContext } from '../controller_context.js';
import { QueueController } from '../controllerutil/index.js';
import { Periodic } from '../periodic.js';
import {
  isTerminalPod,
  RESOURCES as SCHEME,
  toResourceList,
  usageOf,
  quotaSelects,
  type KubeObject,
  type Pod,
  type ResourceQuota,
  type Usage,
} from '../../api/index.js';

/** The controller's name for --controllers. */
export const RESOURCEQUOTA_CONTROLLER = 'resourcequota-controller';

/** --concurrent-resource-quota-syncs and --resource-quota-sync-period, with upstream's defaults. */
export interface ResourceQuotaControllerOptions {
  concurrentResourceQuotaSyncs: number;
  resourceQuotaSyncPeriodMs: number;
}

/** Upstream's defaults: 5 workers, a full resync every 5 minutes. */
export const DEFAULT_RESOURCEQUOTA_OPTIONS: ResourceQuotaControllerOptions = {
  concurrentResourceQuotaSyncs: 5,
  resourceQuotaSyncPeriodMs: 5 * 60_000,
};

const QUOTAS = { group: '', version: 'v1', resource: 'resourcequotas', namespaced: true };

// Which resource's objects a quota name counts: [group, resource].
function resourceFor(name: string): [string, string] | undefined {
  if (name.startsWith('count/')) {
    const [res, ...group] = name.slice('count/'.length).split('.');
    return [group.join('.'), res!];
  }
  if (name.includes('storageclass.storage.k8s.io/') || name === 'requests.storage')
    return ['', 'persistentvolumeclaims'];
  if (name.startsWith('services')) return ['', 'services'];
  if (['configmaps', 'secrets', 'persistentvolumeclaims', 'replicationcontrollers', 'resourcequotas'].includes(name))
    return ['', name];
  // pods and every compute resource (cpu, requests.memory, limits.cpu, hugepages ...).
  return ['', 'pods'];
}

/** Recomputes quotas' status.used from the objects in their namespaces. */
export class ResourceQuotaController extends QueueController {
  protected readonly syncHandler = (key: string): Promise<void> => this.syncResourceQuota(key);
  private readonly quotaLister: Lister<ResourceQuota>;
  private readonly podLister: Lister<Pod>;
  private readonly serviceLister: Lister<KubeObject>;
  private readonly quotas: ResourceClient<ResourceQuota>;
  private readonly client: RESTClient;
  private readonly clock: Clock;
  private readonly resync: Periodic;

  constructor(
    ctx: ControllerContext,
    private readonly opts: ResourceQuotaControllerOptions = DEFAULT_RESOURCEQUOTA_OPTIONS,
  ) {
    super(RESOURCEQUOTA_CONTROLLER, ctx, { workers: opts.concurrentResourceQuotaSyncs });
    this.clock = ctx.clock;
    this.client = ctx.client;
    this.quotas = ctx.client.resource<ResourceQuota>(QUOTAS);
    const quotaInformer = ctx.informers.informerFor<ResourceQuota>(QUOTAS);
    this.quotaLister = quotaInformer.lister();
    quotaInformer.addEventHandler({
      onAdd: (q) => this.queue.add(metaNamespaceKeyFunc(q)),
      onUpdate: (old, q) => {
        // Our own status writes come back as updates; only a spec change needs a sync.
        if (JSON.stringify(old.spec) !== JSON.stringify(q.spec) || q.status?.hard === undefined)
          this.queue.add(metaNamespaceKeyFunc(q));
      },
    });
    const podInformer = ctx.informers.informerFor<Pod>(RESOURCES.pods);
    this.podLister = podInformer.lister();
    podInformer.addEventHandler({
      onUpdate: (old, p) => {
        const now = this.clock.now();
        if (!isTerminalPod(old, now) && isTerminalPod(p, now)) this.replenish(p);
      },
      onDelete: (d) => this.replenish(unwrapDeleted(d)),
    });
    const serviceInformer: SharedInformer<KubeObject> = ctx.informers.informerFor<KubeObject>(RESOURCES.services);
    this.serviceLister = serviceInformer.lister();
    serviceInformer.addEventHandler({ onDelete: (d) => this.replenish(unwrapDeleted(d)) });
    this.resync = new Periodic(
      this.clock,
      opts.resourceQuotaSyncPeriodMs,
      async () => {
        for (const q of this.quotaLister.list()) this.queue.add(metaNamespaceKeyFunc(q));
      },
      this.log,
      'resourcequota-resync',
    );
  }

  /** Starts the workers and the full resync; informers must have synced. */
  override run(): void {
    super.run();
    this.resync.start();
  }

  /** Stops the resync and the workers after in-flight syncs. */
  override async stop(): Promise<void> {
    await this.resync.stop();
    await super.stop();
  }

  /** An object that charged quota went away: resync every quota of its namespace. */
  private replenish(obj: KubeObject): void {
    const ns = obj.metadata?.namespace ?? '';
    for (const q of this.quotaLister.namespace(ns).list()) this.queue.add(metaNamespaceKeyFunc(q));
  }

  /** The objects of group/resource in a namespace: from an informer where the controller has one, else a list. */
  private async objectsOf(group: string, resource: string, ns: string): Promise<KubeObject[]> {
    if (group === '' && resource === 'pods') return this.podLister.namespace(ns).list();
    if (group === '' && resource === 'services') return this.serviceLister.namespace(ns).list();
    const info = SCHEME.find((r) => r.group === group && r.resource === resource);
    if (info === undefined || !info.namespaced) return [];
    const gvr = { group, version: info.version, resource, namespaced: true };
    return (await this.client.resource<KubeObject>(gvr).list({ namespace: ns })).items;
  }

  /** syncResourceQuota: status.hard = spec.hard, status.used recomputed; written only when it changed. */
  async syncResourceQuota(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const rq = this.quotaLister.namespace(namespace).get(name);
    if (rq === undefined) return;
    const hard = rq.spec?.hard ?? {};
    const byResource = new Map<string, string[]>();
    for (const k of Object.keys(hard)) {
      const gr = resourceFor(k);
      if (gr === undefined) continue;
      const id = `${gr[0]}/${gr[1]}`;
      byResource.set(id, [...(byResource.get(id) ?? []), k]);
    }
    const used: Usage = new Map(Object.keys(hard).map((k) => [k, 0]));
    const now = this.clock.now();
    for (const [id, names] of byResource) {
      const [group, resource] = [id.slice(0, id.indexOf('/')), id.slice(id.indexOf('/') + 1)];
      for (const o of await this.objectsOf(group, resource, namespace)) {
        if (!quotaSelects(rq, group, resource, o as Record<string, unknown>)) continue;
        const u = usageOf(group, resource, o as Record<string, unknown>, now);
        for (const k of names) used.set(k, used.get(k)! + (u.get(k) ?? 0));
      }
    }
    const status = { hard: { ...hard }, used: toResourceList(used) };
    if (JSON.stringify(status) === JSON.stringify({ hard: rq.status?.hard, used: rq.status?.used })) return;
    await this.quotas.updateStatus({ ...rq, status }, {});
  }
}
