/**
 * TaintToleration: Filter drops nodes with an untolerated NoSchedule or
 * NoExecute taint; Score prefers nodes with fewer untolerated
 * PreferNoSchedule taints (normalised in reverse).
 */
import {
  ActionType,
  type EnqueueExtensions,
  type FilterPlugin,
  type PreScorePlugin,
  type ScorePlugin,
} from '../../framework/interface.js';
import { Code, pluginStatus, type Status } from '../../framework/status.js';
import { defaultNormalizeScore } from '../helper/normalize.js';
import { findMatchingUntoleratedTaint, tolerationsTolerateTaint } from '../../../api/index.js';

/** The plugin name. */
export const NAME = 'TaintToleration';
const hard = (e: string): boolean => e === 'NoSchedule' || e === 'NoExecute';
const statuses = new Map<string, Status>();
const SKIP = pluginStatus(NAME, Code.Skip);

/** Filters and scores by taints. */
export function taintToleration(): FilterPlugin & PreScorePlugin & ScorePlugin & EnqueueExtensions {
  return {
    name: NAME,
    filter(_s, pod, node) {
      if (node.taints.length === 0) return null;
      const t = findMatchingUntoleratedTaint(node.taints, pod.tolerations, hard);
      if (t === undefined) return null;
      const msg = `node(s) had untolerated taint {${t.key}: ${t.value ?? ''}}`;
      let s = statuses.get(msg);
      if (s === undefined) statuses.set(msg, (s = pluginStatus(NAME, Code.UnschedulableAndUnresolvable, msg)));
      return s;
    },
    preScore(_s, _pod, nodes) {
      // Scores would all be equal (and normalise to 100) unless some feasible node has a PreferNoSchedule taint.
      for (const n of nodes) for (const t of n.taints) if (t.effect === 'PreferNoSchedule') return null;
      return SKIP;
    },
    score(_s, pod, node) {
      let n = 0;
      for (const t of node.taints)
        if (t.effect === 'PreferNoSchedule' && !tolerationsTolerateTaint(pod.tolerations, t)) n++;
      return n;
    },
    normalizeScore: (_s, _p, scores, n) => defaultNormalizeScore(scores, n, true),
    eventsToRegister: () => [{ event: { resource: 'Node', action: ActionType.Add | ActionType.UpdateNodeTaint } }],
  };
}
