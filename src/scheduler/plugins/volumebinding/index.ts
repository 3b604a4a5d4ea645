/**
 * VolumeBinding, like upstream's plugins/volumebinding, simplified: PreFilter
 * reads the pod's claims (a missing or deleting claim, or an unbound claim of
 * an Immediate class, is unschedulable); Filter honours the node affinity of
 * the volumes already bound; PreBind names the chosen node on each unbound
 * WaitForFirstConsumer claim (volume.kubernetes.io/selected-node) and waits,
 * up to bindTimeoutSeconds, for the binder and provisioner to bind them.
 */
import {
  compileTerms,
  storageClassOf,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type StorageClass,
} from '../../../api/index.js';
import { Lister, RESOURCES } from '../../../client/index.js';
import {
  ActionType,
  type EnqueueExtensions,
  type FilterPlugin,
  type Handle,
  type PreBindPlugin,
  type PreFilterPlugin,
} from '../../framework/interface.js';
import type { NodeInfo } from '../../framework/node_info.js';
import type { PodInfo } from '../../framework/pod_info.js';
import { Code, pluginStatus, type MaybeStatus } from '../../framework/status.js';

/** The plugin name. */
export const NAME = 'VolumeBinding';
const SELECTED_NODE = 'volume.kubernetes.io/selected-node';
const STATE_KEY = 'PreFilter' + NAME;
const SKIP = pluginStatus(NAME, Code.Skip);
const CONFLICT = pluginStatus(NAME, Code.UnschedulableAndUnresolvable, 'node(s) had volume node affinity conflict');
const POLL_MS = 100;

interface PodVolumes {
  /** Matchers of the bound volumes' required node affinity. */
  affinity: ((n: NodeInfo) => boolean)[];
  /** Unbound WaitForFirstConsumer claims, bound at PreBind. */
  delayed: PersistentVolumeClaim[];
}

const NO_CLAIMS: readonly string[] = Object.freeze([]);

/** The names of the claims a pod's volumes use; a pod without claims allocates nothing. */
export function podClaimNames(pod: PodInfo): readonly string[] {
  const volumes = pod.pod.spec?.volumes;
  if (volumes === undefined || volumes.length === 0) return NO_CLAIMS;
  let out: string[] | undefined;
  for (const v of volumes) {
    const n = v.persistentVolumeClaim?.claimName;
    if (n) (out ??= []).push(n);
  }
  return out ?? NO_CLAIMS;
}

/** Builds the plugin; args.bindTimeoutSeconds is upstream's VolumeBindingArgs field (default 600). */
export function volumeBinding(
  args: Record<string, unknown>,
  handle: Handle,
): PreFilterPlugin & FilterPlugin & PreBindPlugin & EnqueueExtensions {
  const informers = handle.informerFactory();
  const pvcs = new Lister<PersistentVolumeClaim>(
    informers.informerFor<PersistentVolumeClaim>(RESOURCES.persistentvolumeclaims).indexer,
  );
  const pvs = new Lister<PersistentVolume>(
    informers.informerFor<PersistentVolume>(RESOURCES.persistentvolumes).indexer,
  );
  const classes = new Lister<StorageClass>(informers.informerFor<StorageClass>(RESOURCES.storageclasses).indexer);
  const timeoutMs = (typeof args.bindTimeoutSeconds === 'number' ? args.bindTimeoutSeconds : 600) * 1000;
  const claim = (ns: string, name: string): PersistentVolumeClaim | undefined => pvcs.get(`${ns}/${name}`);

  return {
    name: NAME,
    preFilter(state, pod) {
      const names = podClaimNames(pod);
      if (!names.length) return SKIP;
      const ns = pod.pod.metadata?.namespace ?? '';
      const out: PodVolumes = { affinity: [], delayed: [] };
      for (const name of names) {
        const c = claim(ns, name);
        if (c === undefined)
          return pluginStatus(NAME, Code.UnschedulableAndUnresolvable, `persistentvolumeclaim "${name}" not found`);
        if (c.metadata?.deletionTimestamp)
          return pluginStatus(
            NAME,
            Code.UnschedulableAndUnresolvable,
            `persistentvolumeclaim "${name}" is being deleted`,
          );
        const volumeName = c.spec?.volumeName;
        if (volumeName) {
          const terms = pvs.get(volumeName)?.spec?.nodeAffinity?.required?.nodeSelectorTerms;
          if (terms !== undefined) out.affinity.push(compileTerms(terms));
          continue;
        }
        if (classes.get(storageClassOf(c))?.volumeBindingMode !== 'WaitForFirstConsumer')
          return pluginStatus(
            NAME,
            Code.UnschedulableAndUnresolvable,
            'pod has unbound immediate PersistentVolumeClaims',
          );
        out.delayed.push(c);
      }
      state.write(STATE_KEY, out);
      return null;
    },
    filter(state, _pod, node) {
      const v = state.read<PodVolumes>(STATE_KEY);
      return v === undefined || v.affinity.every((m) => m(node)) ? null : CONFLICT;
    },
    // A pod without delayed claims (every pod without volumes) returns at once, without a promise.
    preBind(state, _pod, nodeName) {
      const v = state.read<PodVolumes>(STATE_KEY);
      if (v === undefined || !v.delayed.length) return null;
      return bindDelayed(v, nodeName);
    },
    // Like upstream's EventsToRegister: a claim of the pod added or bound, a volume or class added or changed, or a
    // node that may match a volume's affinity.
    eventsToRegister: () => [
      { event: { resource: PVC_EVENTS, action: ActionType.Add | ActionType.Update }, hint: usesClaim },
      { event: { resource: PV_EVENTS, action: ActionType.Add | ActionType.Update } },
      { event: { resource: CLASS_EVENTS, action: ActionType.Add | ActionType.Update } },
      { event: { resource: 'Node', action: ActionType.Add | ActionType.UpdateNodeLabel } },
    ],
  };

  async function bindDelayed(v: PodVolumes, nodeName: string): Promise<MaybeStatus> {
    const client = handle.client.resource<PersistentVolumeClaim>(RESOURCES.persistentvolumeclaims);
    for (const c of v.delayed) {
      const patch = { metadata: { annotations: { [SELECTED_NODE]: nodeName } } };
      await client.patch(c.metadata!.name!, 'merge', patch, { namespace: c.metadata!.namespace! });
    }
    const deadline = handle.clock.monotonic() + timeoutMs;
    for (;;) {
      const unbound = v.delayed.filter(
        (c) => claim(c.metadata!.namespace!, c.metadata!.name!)?.status?.phase !== 'Bound',
      );
      if (!unbound.length) return null;
      if (handle.clock.monotonic() >= deadline)
        return pluginStatus(NAME, Code.Error, `binding volumes: timed out waiting for the condition`);
      await new Promise<void>((r) => handle.clock.setTimeout(r, POLL_MS));
    }
  }
}

const PVC_EVENTS = 'persistentvolumeclaims.v1.' as const;
const PV_EVENTS = 'persistentvolumes.v1.' as const;
const CLASS_EVENTS = 'storageclasses.v1.storage.k8s.io' as const;

/** Whether a claim event concerns one of the pod's claims. */
function usesClaim(pod: PodInfo, _old: unknown, obj: unknown): boolean {
  const c = obj as PersistentVolumeClaim | undefined;
  return c?.metadata?.namespace === pod.pod.metadata?.namespace && podClaimNames(pod).includes(c?.metadata?.name ?? '');
}
