/**
 * NodeResourcesFit: Filter checks the pod's requests (CPU, memory,
 * ephemeral storage, pod count, extended resources such as nvidia.com/gpu)
 * against the node's allocatable minus what its pods request. Score is the
 * configured strategy: LeastAllocated (default, spreads), MostAllocated or
 * RequestedToCapacityRatio (bin-packing).
 */
import { ActionType, type EnqueueExtensions, type FilterPlugin, type ScorePlugin } from '../../framework/interface.js';
import { H } from '../../framework/node_info.js';
import { Code, pluginStatus, type Status } from '../../framework/status.js';
import { MAX_NODE_SCORE } from '../helper/normalize.js';

/** The plugin name. */
export const NAME = 'NodeResourcesFit';

/** NodeResourcesFitArgs.scoringStrategy. */
export interface ScoringStrategy {
  type?: 'LeastAllocated' | 'MostAllocated' | 'RequestedToCapacityRatio';
  resources?: { name: string; weight?: number }[];
  requestedToCapacityRatio?: { shape?: { utilization: number; score: number }[] };
}

const TOO_MANY_PODS = pluginStatus(NAME, Code.Unschedulable, 'Too many pods');
const insufficient = new Map<string, Status>();
function insufficientStatus(resource: string): Status {
  let s = insufficient.get(resource);
  if (s === undefined)
    insufficient.set(resource, (s = pluginStatus(NAME, Code.Unschedulable, `Insufficient ${resource}`)));
  return s;
}

/** A scored resource, resolved once: 0 cpu, 1 memory, 2 ephemeral-storage, 3 any scalar. */
interface ScoredResource {
  kind: 0 | 1 | 2 | 3;
  name: string;
  weight: number;
}

const kindOf = (name: string): ScoredResource['kind'] =>
  name === 'cpu' ? 0 : name === 'memory' ? 1 : name === 'ephemeral-storage' ? 2 : 3;

/** Piecewise-linear function through the shape points (utilization 0..100 -> score 0..10, scaled to 0..100). */
function shapeFn(shape: { utilization: number; score: number }[]): (u: number) => number {
  const pts = [...shape]
    .sort((a, b) => a.utilization - b.utilization)
    .map((p) => ({ u: p.utilization, s: (p.score * MAX_NODE_SCORE) / 10 }));
  return (u) => {
    if (pts.length === 0) return 0;
    if (u <= pts[0].u) return pts[0].s;
    for (let i = 1; i < pts.length; i++) {
      if (u <= pts[i].u)
        return pts[i - 1].s + ((pts[i].s - pts[i - 1].s) * (u - pts[i - 1].u)) / (pts[i].u - pts[i - 1].u);
    }
    return pts[pts.length - 1].s;
  };
}

/** Builds NodeResourcesFit from NodeResourcesFitArgs. */
export function nodeResourcesFit(
  args: { scoringStrategy?: ScoringStrategy; ignoredResources?: string[] } = {},
): FilterPlugin & ScorePlugin & EnqueueExtensions {
  const strategy = args.scoringStrategy ?? {};
  const type = strategy.type ?? 'LeastAllocated';
  const resources: ScoredResource[] = (
    strategy.resources ?? [
      { name: 'cpu', weight: 1 },
      { name: 'memory', weight: 1 },
    ]
  ).map((r) => ({ kind: kindOf(r.name), name: r.name, weight: r.weight ?? 1 }));
  const ignored = new Set(args.ignoredResources ?? []);
  const shape = shapeFn(
    strategy.requestedToCapacityRatio?.shape ?? [
      { utilization: 0, score: 10 },
      { utilization: 100, score: 0 },
    ],
  );
  const resourceScore: (req: number, alloc: number) => number =
    type === 'LeastAllocated'
      ? (req, alloc) => (req > alloc ? 0 : ((alloc - req) * MAX_NODE_SCORE) / alloc)
      : type === 'MostAllocated'
        ? (req, alloc) => (req > alloc ? MAX_NODE_SCORE : (req * MAX_NODE_SCORE) / alloc)
        : (req, alloc) => shape(Math.min(100, (req * 100) / alloc));
  return {
    name: NAME,
    filter(_s, pod, node) {
      const h = node.h;
      const o = node.o;
      const r = pod.requests;
      if (h[o + H.pods] + 1 > h[o + H.allowedPods]) return TOO_MANY_PODS;
      if (r.milliCPU > 0 && r.milliCPU > h[o + H.allocCPU] - h[o + H.reqCPU]) return insufficientStatus('cpu');
      if (r.memory > 0 && r.memory > h[o + H.allocMem] - h[o + H.reqMem]) return insufficientStatus('memory');
      if (r.ephemeralStorage > 0 && r.ephemeralStorage > h[o + H.allocEph] - h[o + H.reqEph])
        return insufficientStatus('ephemeral-storage');
      if (r.scalar !== undefined) {
        const a = node.allocatable;
        const used = node.requested;
        for (const [name, want] of r.scalar) {
          if (want <= 0 || ignored.has(name)) continue;
          if (want > (a.scalar?.get(name) ?? 0) - (used.scalar?.get(name) ?? 0)) return insufficientStatus(name);
        }
      }
      return null;
    },
    score(_s, pod, node) {
      // Hot: runs for every feasible node of every pod, so no allocation and no lookups by name for CPU and memory.
      let sum = 0;
      let weights = 0;
      for (let i = 0; i < resources.length; i++) {
        const r = resources[i];
        let req: number;
        let alloc: number;
        if (r.kind === 0) {
          req = node.h[node.o + H.nzCPU] + pod.nonZeroCPU;
          alloc = node.h[node.o + H.allocCPU];
        } else if (r.kind === 1) {
          req = node.h[node.o + H.nzMem] + pod.nonZeroMemory;
          alloc = node.h[node.o + H.allocMem];
        } else if (r.kind === 2) {
          req = node.requested.ephemeralStorage + pod.requests.ephemeralStorage;
          alloc = node.allocatable.ephemeralStorage;
        } else {
          const want = pod.requests.scalar?.get(r.name) ?? 0;
          // Like upstream, an extended resource the pod does not ask for does not steer its placement.
          if (want === 0) continue;
          req = (node.requested.scalar?.get(r.name) ?? 0) + want;
          alloc = node.allocatable.scalar?.get(r.name) ?? 0;
        }
        if (alloc <= 0) continue;
        sum += resourceScore(req, alloc) * r.weight;
        weights += r.weight;
      }
      return weights === 0 ? 0 : Math.floor(sum / weights);
    },
    eventsToRegister: () => [
      { event: { resource: 'AssignedPod', action: ActionType.Delete } },
      { event: { resource: 'Node', action: ActionType.Add | ActionType.UpdateNodeAllocatable } },
    ],
  };
}
