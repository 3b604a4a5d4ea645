/**
 * PodTopologySpread: DoNotSchedule constraints filter nodes whose domain
 * would exceed maxSkew over the least-loaded eligible domain; ScheduleAnyway
 * constraints score nodes by how many matching pods their domain holds.
 * Matching pods are counted by the cache's incremental per-domain counters,
 * so a cycle costs O(constraints), not O(pods). Nodes failing the pod's
 * node affinity do not count as domains (nodeAffinityPolicy Honor).
 */
import { fromLabelSelector } from '../../../api/index.js';
import {
  ActionType,
  type EnqueueExtensions,
  type FilterPlugin,
  type Handle,
  type PreFilterPlugin,
  type PreScorePlugin,
  type ScorePlugin,
  type Snapshot,
} from '../../framework/interface.js';
import type { NodeInfo } from '../../framework/node_info.js';
import type { PodInfo } from '../../framework/pod_info.js';
import { Code, pluginStatus } from '../../framework/status.js';
import type { TopologySpreadConstraint } from '../../../api/index.js';
import { MAX_NODE_SCORE } from '../helper/normalize.js';
import { requiredNodeMatcher } from '../nodeaffinity/index.js';

/** The plugin name. */
export const NAME = 'PodTopologySpread';
const SKIP = pluginStatus(NAME, Code.Skip);
const LABEL_MISSING = pluginStatus(
  NAME,
  Code.UnschedulableAndUnresolvable,
  "node(s) didn't match pod topology spread constraints (missing required label)",
);
const SKEW = pluginStatus(NAME, Code.Unschedulable, "node(s) didn't match pod topology spread constraints");
const FILTER_KEY = 'PreFilter' + NAME;
const SCORE_KEY = 'PreScore' + NAME;

interface Prepared {
  key: string;
  maxSkew: number;
  selfMatch: number;
  /** domain -> matching pods (eligible nodes only). */
  counts: ReadonlyMap<string, number>;
  minMatch: number;
  /** Score weight: log(domains + 2), like upstream. */
  weight: number;
}

function prepare(pod: PodInfo, cs: TopologySpreadConstraint[], snap: Snapshot): Prepared[] {
  const eligible = requiredNodeMatcher(pod);
  return cs.map((c) => {
    let selector;
    try {
      selector = fromLabelSelector(c.labelSelector);
    } catch {
      selector = fromLabelSelector(undefined);
    }
    const ns = new Set([pod.namespace]);
    const counter = snap.matchCounter(
      ns,
      selector,
      c.topologyKey,
      `pts|${pod.namespace}|${selector.toString()}|${selector.nothing}|${c.topologyKey}`,
    );
    let counts: ReadonlyMap<string, number>;
    let domains: Iterable<string>;
    let numDomains: number;
    if (eligible === undefined) {
      counts = counter.byDomain;
      const d = snap.domains(c.topologyKey);
      domains = d.keys();
      numDomains = d.size;
    } else {
      // Only domains of nodes the pod could land on count; this walk happens only for pods with node constraints.
      const m = new Map<string, number>();
      for (const n of snap.nodes()) {
        const v = n.labels[c.topologyKey];
        if (v === undefined || !eligible(n)) continue;
        m.set(v, (m.get(v) ?? 0) + (counter.byNode.get(n.name) ?? 0));
      }
      counts = m;
      domains = m.keys();
      numDomains = m.size;
    }
    let minMatch = Infinity;
    for (const d of domains) minMatch = Math.min(minMatch, counts.get(d) ?? 0);
    if (!Number.isFinite(minMatch) || numDomains < (c.minDomains ?? 1)) minMatch = 0;
    return {
      key: c.topologyKey,
      maxSkew: c.maxSkew,
      selfMatch: selector.matches(pod.labels) ? 1 : 0,
      counts,
      minMatch,
      weight: Math.log(numDomains + 2),
    };
  });
}

/** Filters and scores by topology spread constraints. */
export function podTopologySpread(
  _args: Record<string, unknown>,
  handle: Handle,
): PreFilterPlugin & FilterPlugin & PreScorePlugin & ScorePlugin & EnqueueExtensions {
  return {
    name: NAME,
    preFilter(state, pod, snap) {
      const hard = (pod.pod.spec?.topologySpreadConstraints ?? []).filter(
        (c) => c.whenUnsatisfiable !== 'ScheduleAnyway',
      );
      if (hard.length === 0) return SKIP;
      state.write(FILTER_KEY, prepare(pod, hard, snap));
      return null;
    },
    filter(state, _pod, node) {
      const ps = state.read<Prepared[]>(FILTER_KEY);
      if (ps === undefined) return null;
      for (const p of ps) {
        const v = node.labels[p.key];
        if (v === undefined) return LABEL_MISSING;
        if ((p.counts.get(v) ?? 0) + p.selfMatch - p.minMatch > p.maxSkew) return SKEW;
      }
      return null;
    },
    preScore(state, pod) {
      const soft = (pod.pod.spec?.topologySpreadConstraints ?? []).filter(
        (c) => c.whenUnsatisfiable === 'ScheduleAnyway',
      );
      if (soft.length === 0) return SKIP;
      state.write(SCORE_KEY, prepare(pod, soft, handle.snapshot()));
      return null;
    },
    score(state, _pod, node: NodeInfo) {
      let s = 0;
      for (const p of state.read<Prepared[]>(SCORE_KEY) ?? []) {
        const v = node.labels[p.key];
        // A node outside every domain gets the worst raw score.
        s += v === undefined ? 1e9 : (p.counts.get(v) ?? 0) * p.weight + (p.maxSkew - 1);
      }
      return s;
    },
    normalizeScore(_s, _p, scores, n) {
      let min = Infinity;
      let max = 0;
      for (let i = 0; i < n; i++) {
        if (scores[i] >= 1e9) continue;
        min = Math.min(min, scores[i]);
        max = Math.max(max, scores[i]);
      }
      for (let i = 0; i < n; i++) {
        if (scores[i] >= 1e9) scores[i] = 0;
        else scores[i] = max === 0 ? MAX_NODE_SCORE : Math.floor((MAX_NODE_SCORE * (max + min - scores[i])) / max);
      }
    },
    eventsToRegister: () => [
      { event: { resource: 'AssignedPod', action: ActionType.Add | ActionType.Delete | ActionType.Update } },
      {
        event: {
          resource: 'Node',
          action: ActionType.Add | ActionType.Delete | ActionType.UpdateNodeLabel | ActionType.UpdateNodeTaint,
        },
      },
    ],
  };
}
