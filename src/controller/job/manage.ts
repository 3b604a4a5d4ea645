/**
 * What a Job sync decides about pods, like manageJob in
 * pkg/controller/job/job_controller.go: how many pods should run, which
 * surplus pods to delete (for Indexed Jobs duplicates and pods of finished or
 * out-of-range indexes first), and which indexes need new pods.
 */
import { compareForDeletion, isPodActive, isPodReady } from '../controllerutil/index.js';
import { firstPendingIndexes, getCompletionIndex } from './indexed.js';
import type { Job, Pod } from '../../api/index.js';

/** The pods to delete and the pods to create (one entry per pod; the index for Indexed Jobs). */
export interface PodChanges {
  deletes: Pod[];
  creates: (number | undefined)[];
}

/** wantActive: parallelism, capped by the completions still missing. */
export function wantActive(job: Job, succeeded: number): number {
  const parallelism = job.spec?.parallelism ?? 1;
  const completions = job.spec?.completions;
  if (completions === undefined || completions === null) return succeeded > 0 ? 0 : parallelism;
  return Math.max(0, Math.min(parallelism, completions - succeeded));
}

/** The deletes and creates that bring the active pods to `want`; `terminating` count as active under podReplacementPolicy Failed. */
export function podChanges(
  job: Job,
  active: readonly Pod[],
  terminating: number,
  want: number,
  completed: ReadonlySet<number> | undefined,
  maxPerSync: number,
): PodChanges {
  const indexed = job.spec?.completionMode === 'Indexed';
  const counted = active.length + (job.spec?.podReplacementPolicy === 'Failed' ? terminating : 0);
  if (!indexed) {
    if (counted > want)
      return {
        deletes: [...active]
          .sort((a, b) => compareForDeletion(a, b, 0, 0))
          .slice(0, Math.min(counted - want, active.length, maxPerSync)),
        creates: [],
      };
    return { deletes: [], creates: Array.from({ length: Math.min(want - counted, maxPerSync) }, () => undefined) };
  }
  const completions = job.spec?.completions ?? 0;
  const byIndex = new Map<number, Pod[]>();
  const deletes: Pod[] = [];
  for (const p of active) {
    const i = getCompletionIndex(p);
    if (i === undefined || i >= completions || completed?.has(i) === true) deletes.push(p);
    else byIndex.set(i, [...(byIndex.get(i) ?? []), p]);
  }
  // One pod per index: keep the most advanced (ready, then running), drop the duplicates.
  for (const pods of byIndex.values()) {
    if (pods.length < 2) continue;
    pods.sort((a, b) => compareForDeletion(b, a, 0, 0));
    deletes.push(...pods.slice(1));
    pods.length = 1;
  }
  let kept = byIndex.size + (job.spec?.podReplacementPolicy === 'Failed' ? terminating : 0);
  if (kept > want) {
    const highestFirst = [...byIndex.entries()].sort(([a], [b]) => b - a);
    for (const [i, [p]] of highestFirst) {
      if (kept <= want) break;
      deletes.push(p!);
      byIndex.delete(i);
      kept--;
    }
  }
  if (deletes.length > 0) return { deletes: deletes.slice(0, maxPerSync), creates: [] };
  const n = Math.min(want - kept, maxPerSync);
  return {
    deletes: [],
    creates: n > 0 ? firstPendingIndexes(n, completions, completed ?? new Set(), new Set(byIndex.keys())) : [],
  };
}

/** Active pods, pods being deleted, and the Ready count among active pods. */
export function classifyPods(pods: readonly Pod[]): { active: Pod[]; terminating: Pod[]; ready: number } {
  const active = pods.filter(isPodActive);
  const terminating = pods.filter(
    (p) =>
      p.metadata?.deletionTimestamp !== undefined && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed',
  );
  return { active, terminating, ready: active.filter(isPodReady).length };
}
