/**
 * Objects every cluster has, created at start-up like kube-apiserver's
 * bootstrap controllers: the system namespaces and the `kubernetes` Service
 * (ClusterIP = the first address of the service range); and, as kind and
 * minikube install theirs, the default StorageClass `hollow`, whose claims
 * the controller-manager's hollow provisioner serves.
 */
import type { Clock } from '../../clock/index.js';
import { meta, type Obj } from '../object.js';
import type { StrategyConfig } from '../registry/strategy.js';
import type { GenericStore } from '../registry/store.js';

/** The namespaces kube-apiserver creates. */
export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** Tries of `ensure` before start-up fails; another API server may hold the object's ClusterIP for a moment. */
const ENSURE_ATTEMPTS = 20;
const ENSURE_RETRY_MS = 250;

/**
 * Creates `obj` unless it exists. Several API servers start at once over one etcd: a create may fail because
 * another server is creating the same object (AlreadyExists, or its ClusterIP already allocated while that server's
 * create is still in flight), so a failed create is looked up again and retried for a few seconds, as upstream's
 * bootstrap controller retries on its loop, before start-up gives up.
 */
async function ensure(store: GenericStore, obj: Obj, clock: Clock): Promise<void> {
  const m = meta(obj);
  const exists = async (): Promise<boolean> =>
    store.get(m.namespace as string | undefined, m.name as string).then(
      () => true,
      () => false,
    );
  for (let attempt = 1; ; attempt++) {
    if (await exists()) return;
    try {
      // The create sequence without admission, as upstream's bootstrap controllers write through the registry.
      await store.create(structuredClone(obj), { now: clock.now(), dryRun: false });
      return;
    } catch (err) {
      if ((err as { reason?: string }).reason === 'AlreadyExists' || (await exists())) return;
      if (attempt >= ENSURE_ATTEMPTS) throw err;
    }
    await new Promise<void>((r) => clock.setTimeout(r, ENSURE_RETRY_MS));
  }
}

/** The default StorageClass the server installs. */
export const HOLLOW_STORAGE_CLASS = {
  kind: 'StorageClass',
  apiVersion: 'storage.k8s.io/v1',
  metadata: { name: 'hollow', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
  provisioner: 'kscale.io/hollow',
  reclaimPolicy: 'Delete',
  volumeBindingMode: 'Immediate',
  allowVolumeExpansion: true,
};

/** Creates the system namespaces, the `kubernetes` Service and the `hollow` StorageClass when missing. */
export async function bootstrap(stores: Map<string, GenericStore>, cfg: StrategyConfig, clock: Clock): Promise<void> {
  for (const name of SYSTEM_NAMESPACES) {
    await ensure(stores.get('namespaces')!, { kind: 'Namespace', apiVersion: 'v1', metadata: { name } }, clock);
  }
  await ensure(
    stores.get('services')!,
    {
      kind: 'Service',
      apiVersion: 'v1',
      metadata: {
        name: 'kubernetes',
        namespace: 'default',
        labels: { component: 'apiserver', provider: 'kubernetes' },
      },
      spec: {
        type: 'ClusterIP',
        clusterIP: cfg.serviceIPs.first(),
        ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }],
        sessionAffinity: 'None',
      },
    },
    clock,
  );
  await ensure(stores.get('storageclasses')!, structuredClone(HOLLOW_STORAGE_CLASS), clock);
}
