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
import type { FilterPlugin, Handle, PreBindPlugin, PreFilterPlugin } from '../../framework/interface.js';
import type { NodeInfo } from '../../framework/node_info.js';
import type { PodInfo } from '../../framework/pod_info.js';
import { Code, pluginStatus } from '../../framework/status.js';

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

/** The names of the claims a pod's volumes use. */
export function podClaimNames(pod: PodInfo): string[] {
  const volumes = (pod.pod.spec as { volumes?: { persistentVolumeClaim?: { claimName?: string } }[] }).volumes ?? [];
  return volumes.map((v) => v.persistentVolumeClaim?.claimName).filter((n): n is string => !!n);
}

/** Builds the plugin; args.bindTimeoutSeconds is upstream's VolumeBindingArgs field (default 600). */
export function volumeBinding(
  args: Record<string, unknown>,
  handle: Handle,
): PreFilterPlugin & FilterPlugin & PreBindPlugin {
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
    async preBind(state, _pod, nodeName) {
      const v = state.read<PodVolumes>(STATE_KEY);
      if (v === undefined || !v.delayed.length) return null;
      const client = handle.client.resource<PersistentVolumeClaim>(RESOURCES.persistentvolumeclaims);
      for (const c of v.delayed) {
        const patch = { metadata: { annotations: { [SELECTED_NODE]: nodeName } } };
        await client.patch(c.metadata!.name!, 'merge', patch, { namespace: c.metadata!.namespace! });
      }
      const deadline = handle.clock.now() + timeoutMs;
      for (;;) {
        const unbound = v.delayed.filter(
          (c) => claim(c.metadata!.namespace!, c.metadata!.name!)?.status?.phase !== 'Bound',
        );
        if (!unbound.length) return null;
        if (handle.clock.now() >= deadline)
          return pluginStatus(NAME, Code.Error, `binding volumes: timed out waiting for the condition`);
        await new Promise<void>((r) => handle.clock.setTimeout(r, POLL_MS));
      }
    },
  };
}
