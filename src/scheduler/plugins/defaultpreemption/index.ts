/**
 * DefaultPreemption (PostFilter): when no node fits, find nodes where
 * removing lower-priority pods would make the pod fit, keep the fewest and
 * least important victims (reprieving from the highest priority down), pick
 * the node whose victims matter least, delete them, and nominate the node.
 * Like upstream, a pod with preemptionPolicy Never does not preempt; what-if
 * checks run the Filter plugins on a copy of the node.
 */
import { RESOURCES, type KubeObject } from '../../../client/index.js';
import type { Handle, NodeToStatus, PostFilterPlugin, PostFilterResult } from '../../framework/interface.js';
import type { NodeInfo } from '../../framework/node_info.js';
import type { PodInfo } from '../../framework/pod_info.js';
import { Code, newStatus, SUCCESS } from '../../framework/status.js';
import type { CycleState } from '../../framework/cycle_state.js';

/** The plugin name. */
export const NAME = 'DefaultPreemption';

/** A node and the pods to evict there. */
interface Candidate {
  node: string;
  victims: PodInfo[];
}

/** DefaultPreemptionArgs, with upstream's defaults. */
export interface DefaultPreemptionArgs {
  minCandidateNodesPercentage?: number;
  minCandidateNodesAbsolute?: number;
}

const byPriorityDesc = (a: PodInfo, b: PodInfo): number => b.priority - a.priority || a.created - b.created;

/** Victims on `ni` that let `pod` fit, or undefined when even evicting every lower-priority pod is not enough. */
export function selectVictimsOnNode(
  handle: Handle,
  state: CycleState,
  pod: PodInfo,
  ni: NodeInfo,
): PodInfo[] | undefined {
  const lower = [...ni.pods.values()].filter((p) => p.priority < pod.priority);
  if (lower.length === 0) return undefined;
  const sim = ni.clone();
  for (const v of lower) sim.removePod(v.key);
  if (handle.runFilterPlugins(state, pod, sim) !== null) return undefined;
  const victims: PodInfo[] = [];
  // Reprieve the most important pods first: put each back, and keep it only if the pod still fits.
  for (const v of lower.sort(byPriorityDesc)) {
    sim.addPod(v);
    if (handle.runFilterPlugins(state, pod, sim) !== null) {
      sim.removePod(v.key);
      victims.push(v);
    }
  }
  return victims;
}

/** Upstream's pickOneNodeForPreemption, reduced to its main criteria. */
function pick(cands: Candidate[]): Candidate {
  const maxPrio = (c: Candidate): number => Math.max(...c.victims.map((v) => v.priority));
  const sumPrio = (c: Candidate): number => c.victims.reduce((s, v) => s + v.priority + 2 ** 31, 0);
  return [...cands].sort(
    (a, b) => maxPrio(a) - maxPrio(b) || sumPrio(a) - sumPrio(b) || a.victims.length - b.victims.length,
  )[0];
}

/** Builds DefaultPreemption. */
export function defaultPreemption(args: DefaultPreemptionArgs, handle: Handle): PostFilterPlugin {
  const pct = args.minCandidateNodesPercentage ?? 10;
  const abs = args.minCandidateNodesAbsolute ?? 100;
  const pods = handle.client.resource<KubeObject>(RESOURCES.pods);
  return {
    name: NAME,
    async postFilter(state, pod, filtered: NodeToStatus): Promise<PostFilterResult> {
      if (pod.pod.spec?.preemptionPolicy === 'Never')
        return { status: newStatus(Code.Unschedulable, 'preemption: not eligible due to preemptionPolicy=Never.') };
      const nodes = handle.snapshot().nodes();
      const potential = nodes.filter((n) => filtered.get(n.name)?.code !== Code.UnschedulableAndUnresolvable);
      if (potential.length === 0)
        return {
          status: newStatus(
            Code.Unschedulable,
            `preemption: 0/${nodes.length} nodes are available: ${nodes.length} Preemption is not helpful for scheduling.`,
          ),
        };
      const want = Math.min(potential.length, Math.max(abs, Math.floor((potential.length * pct) / 100)));
      const offset = Math.floor(Math.random() * potential.length);
      const cands: Candidate[] = [];
      for (let i = 0; i < potential.length && cands.length < want; i++) {
        const ni = potential[(offset + i) % potential.length];
        const victims = selectVictimsOnNode(handle, state, pod, ni);
        if (victims !== undefined && victims.length > 0) cands.push({ node: ni.name, victims });
      }
      if (cands.length === 0)
        return {
          status: newStatus(
            Code.Unschedulable,
            `preemption: 0/${nodes.length} nodes are available: ${potential.length} No preemption victims found for incoming pod.`,
          ),
        };
      const best = pick(cands);
      await Promise.all(
        best.victims.map(async (v) => {
          handle.recorder.event(
            { ...v.pod, kind: 'Pod', apiVersion: 'v1' },
            'Normal',
            'Preempted',
            `Preempted by pod ${pod.uid} on node ${best.node}`,
          );
          await pods.delete(v.name, { namespace: v.namespace, preconditions: { uid: v.uid } }).catch(() => undefined);
        }),
      );
      return { status: SUCCESS, nominatedNodeName: best.node };
    },
  };
}
