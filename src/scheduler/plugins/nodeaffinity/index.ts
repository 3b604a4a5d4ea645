/**
 * NodeAffinity: Filter enforces spec.nodeSelector and required node
 * affinity; Score sums the weights of matching preferred terms. Selectors
 * are compiled in PreFilter/PreScore, once per pod.
 */
import {
  ActionType,
  type EnqueueExtensions,
  type FilterPlugin,
  type PreFilterPlugin,
  type PreScorePlugin,
  type ScorePlugin,
} from '../../framework/interface.js';
import type { NodeInfo } from '../../framework/node_info.js';
import type { PodInfo } from '../../framework/pod_info.js';
import { Code, pluginStatus } from '../../framework/status.js';
import { defaultNormalizeScore } from '../helper/normalize.js';
import { compileTerm, compileTerms } from '../../../api/index.js';

/** The plugin name. */
export const NAME = 'NodeAffinity';
const MISMATCH = pluginStatus(
  NAME,
  Code.UnschedulableAndUnresolvable,
  "node(s) didn't match Pod's node affinity/selector",
);
const SKIP = pluginStatus(NAME, Code.Skip);
const PRE_FILTER_KEY = 'PreFilter' + NAME;
const PRE_SCORE_KEY = 'PreScore' + NAME;

/** The pod's required node constraints as one matcher, or undefined when it has none. */
export function requiredNodeMatcher(pod: PodInfo): ((n: NodeInfo) => boolean) | undefined {
  const sel = pod.pod.spec?.nodeSelector;
  const terms = pod.pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  const hasSel = sel !== undefined && Object.keys(sel).length > 0;
  if (!hasSel && terms === undefined) return undefined;
  const entries = hasSel ? Object.entries(sel) : [];
  const termFn = terms === undefined ? undefined : compileTerms(terms);
  return (n) => {
    for (const [k, v] of entries) if (n.labels[k] !== v) return false;
    return termFn === undefined || termFn(n);
  };
}

/**
 * The nodes a pod's required affinity pins it to by `metadata.name In`, like upstream's NodeAffinity PreFilterResult:
 * defined only when every term has such a field requirement (terms are ORed, so their names are united).
 */
export function requiredNodeNames(pod: PodInfo): Set<string> | undefined {
  const terms = pod.pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (terms === undefined || terms.length === 0) return undefined;
  const names = new Set<string>();
  for (const t of terms) {
    const pin = (t.matchFields ?? []).find((f) => f.key === 'metadata.name' && f.operator === 'In');
    if (pin === undefined) return undefined;
    for (const v of pin.values ?? []) names.add(v);
  }
  return names;
}

/** Filters and scores by node affinity. */
export function nodeAffinity(): PreFilterPlugin & FilterPlugin & PreScorePlugin & ScorePlugin & EnqueueExtensions {
  return {
    name: NAME,
    preFilter(state, pod) {
      const m = requiredNodeMatcher(pod);
      if (m === undefined) return SKIP;
      state.write(PRE_FILTER_KEY, m);
      const names = requiredNodeNames(pod);
      if (names !== undefined)
        state.nodeNames = state.nodeNames === undefined ? names : intersect(state.nodeNames, names);
      return null;
    },
    filter(state, _pod, node) {
      const m = state.read<(n: NodeInfo) => boolean>(PRE_FILTER_KEY);
      return m === undefined || m(node) ? null : MISMATCH;
    },
    preScore(state, pod) {
      const pref = pod.pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [];
      if (pref.length === 0) return SKIP;
      state.write(
        PRE_SCORE_KEY,
        pref.map((p) => ({ weight: p.weight, match: compileTerm(p.preference) })),
      );
      return null;
    },
    score(state, _pod, node) {
      let sum = 0;
      for (const t of state.read<{ weight: number; match: (n: NodeInfo) => boolean }[]>(PRE_SCORE_KEY) ?? [])
        if (t.weight !== 0 && t.match(node)) sum += t.weight;
      return sum;
    },
    normalizeScore: (_s, _p, scores, n) => defaultNormalizeScore(scores, n, false),
    eventsToRegister: () => [{ event: { resource: 'Node', action: ActionType.Add | ActionType.UpdateNodeLabel } }],
  };
}

const intersect = (a: ReadonlySet<string>, b: ReadonlySet<string>): Set<string> =>
  new Set([...a].filter((x) => b.has(x)));
