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

async function ensure(store: GenericStore, obj: Obj, clock: Clock): Promise<void> {
  const m = meta(obj);
  try {
    await store.get(m.namespace as string | undefined, m.name as string);
    return;
  } catch {
    // Missing: create it below.
  }
  try {
    // The create sequence without admission, as upstream's bootstrap controllers write through the registry.
    await store.create(obj, { now: clock.now(), dryRun: false });
  } catch (err) {
    if ((err as { reason?: string }).reason === 'AlreadyExists') return;
    // Another API server may have created it meanwhile (its ClusterIP is then already allocated): fine if it exists.
    try {
      await store.get(m.namespace as string | undefined, m.name as string);
    } catch {
      throw err;
    }
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
