/**
 * InterPodAffinity: required pod affinity and anti-affinity (both the
 * incoming pod's terms and, symmetrically, existing pods' anti-affinity
 * against it) filter nodes; preferred terms score them. Upstream once
 * walked every pod on every node for each pod (O(N²)); here the incoming
 * pod's terms read the cache's per-domain counters and existing pods' terms
 * are pre-merged by term, so a cycle costs O(distinct terms).
 */
import {
  ActionType,
  type EnqueueExtensions,
  type ExistingTerms,
  type FilterPlugin,
  type Handle,
  type MatchCounter,
  type PreFilterPlugin,
  type PreScorePlugin,
  type ScorePlugin,
  type Snapshot,
} from '../../framework/interface.js';
import { termMatches, type AffinityTerm, type PodInfo } from '../../framework/pod_info.js';
import { Code, pluginStatus } from '../../framework/status.js';
import { minMaxNormalize } from '../helper/normalize.js';

/** The plugin name. */
export const NAME = 'InterPodAffinity';
const SKIP = pluginStatus(NAME, Code.Skip);
const EXISTING_ANTI = pluginStatus(
  NAME,
  Code.Unschedulable,
  "node(s) didn't satisfy existing pods anti-affinity rules",
);
const AFFINITY = pluginStatus(NAME, Code.UnschedulableAndUnresolvable, "node(s) didn't match pod affinity rules");
const ANTI = pluginStatus(NAME, Code.Unschedulable, "node(s) didn't match pod anti-affinity rules");
const FILTER_KEY = 'PreFilter' + NAME;
const SCORE_KEY = 'PreScore' + NAME;

interface FilterState {
  existingAnti: ExistingTerms[];
  affinity: MatchCounter[];
  anti: MatchCounter[];
  /** No pod matches the affinity terms yet and the pod matches them itself: the first of a group may go anywhere. */
  affinityWaived: boolean;
}

interface ScoreTerm {
  key: string;
  byDomain: ReadonlyMap<string, number>;
  /** Multiplier per matching pod (negative for anti-affinity). */
  factor: number;
}

const counterFor = (snap: Snapshot, t: AffinityTerm): MatchCounter =>
  snap.matchCounter(t.namespaces, t.selector, t.topologyKey, `ipa|${t.signature}`);

/** Filters and scores by inter-pod (anti-)affinity. */
export function interPodAffinity(
  args: { hardPodAffinityWeight?: number },
  handle: Handle,
): PreFilterPlugin & FilterPlugin & PreScorePlugin & ScorePlugin & EnqueueExtensions {
  const hardWeight = args.hardPodAffinityWeight ?? 1;
  return {
    name: NAME,
    preFilter(state, pod: PodInfo, snap) {
      const existingAnti: ExistingTerms[] = [];
      for (const agg of snap.existingTerms())
        if (agg.kind === 'requiredAntiAffinity' && termMatches(agg.term, pod)) existingAnti.push(agg);
      if (existingAnti.length === 0 && pod.requiredAffinity.length === 0 && pod.requiredAntiAffinity.length === 0)
        return SKIP;
      const affinity = pod.requiredAffinity.map((t) => counterFor(snap, t));
      const anti = pod.requiredAntiAffinity.map((t) => counterFor(snap, t));
      const affinityWaived =
        affinity.length > 0 &&
        affinity.every((c) => c.total === 0) &&
        pod.requiredAffinity.every((t) => termMatches(t, pod));
      state.write(FILTER_KEY, { existingAnti, affinity, anti, affinityWaived } satisfies FilterState);
      return null;
    },
    filter(state, pod, node) {
      const fs = state.read<FilterState>(FILTER_KEY);
      if (fs === undefined) return null;
      const labels = node.labels;
      for (const e of fs.existingAnti) {
        const v = labels[e.term.topologyKey];
        if (v !== undefined && (e.byDomain.get(v) ?? 0) > 0) return EXISTING_ANTI;
      }
      if (!fs.affinityWaived) {
        for (const c of fs.affinity) {
          const v = labels[c.topologyKey];
          if (v === undefined || (c.byDomain.get(v) ?? 0) === 0) return AFFINITY;
        }
      }
      for (const c of fs.anti) {
        const v = labels[c.topologyKey];
        if (v !== undefined && (c.byDomain.get(v) ?? 0) > 0) return ANTI;
      }
      void pod;
      return null;
    },
    preScore(state, pod) {
      const snap = handle.snapshot();
      const terms: ScoreTerm[] = [];
      for (const t of pod.preferredAffinity)
        terms.push({ key: t.topologyKey, byDomain: counterFor(snap, t).byDomain, factor: t.weight });
      for (const t of pod.preferredAntiAffinity)
        terms.push({ key: t.topologyKey, byDomain: counterFor(snap, t).byDomain, factor: -t.weight });
      for (const agg of snap.existingTerms()) {
        if (agg.kind === 'requiredAntiAffinity' || !termMatches(agg.term, pod)) continue;
        // Existing pods' terms are pre-weighted in byDomain; required affinity counts with hardPodAffinityWeight.
        const factor = agg.kind === 'preferredAntiAffinity' ? -1 : agg.kind === 'requiredAffinity' ? hardWeight : 1;
        if (factor !== 0) terms.push({ key: agg.term.topologyKey, byDomain: agg.byDomain, factor });
      }
      if (terms.length === 0) return SKIP;
      state.write(SCORE_KEY, terms);
      return null;
    },
    score(state, _pod, node) {
      let s = 0;
      for (const t of state.read<ScoreTerm[]>(SCORE_KEY) ?? []) {
        const v = node.labels[t.key];
        if (v !== undefined) s += (t.byDomain.get(v) ?? 0) * t.factor;
      }
      return s;
    },
    normalizeScore: (_s, _p, scores, n) => minMaxNormalize(scores, n),
    eventsToRegister: () => [
      { event: { resource: 'AssignedPod', action: ActionType.Add | ActionType.Delete | ActionType.Update } },
      { event: { resource: 'Node', action: ActionType.Add | ActionType.UpdateNodeLabel } },
    ],
  };
}
