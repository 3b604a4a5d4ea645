/**
 * Indexed completion mode, like pkg/controller/job/indexed_job_utils.go:
 * the completion index of a pod, the `completedIndexes` interval string
 * ("1,3-5"), and which indexes still need a pod.
 */
import { JOB_COMPLETION_INDEX } from './constants.js';
import type { Pod } from '../../api/index.js';

/** The pod's completion index, or undefined when missing or malformed. */
export function getCompletionIndex(pod: Pod): number | undefined {
  const v = pod.metadata?.annotations?.[JOB_COMPLETION_INDEX] ?? pod.metadata?.labels?.[JOB_COMPLETION_INDEX];
  if (v === undefined || !/^\d+$/.test(v)) return undefined;
  return Number(v);
}

/** Parses "1,3-5" into a set of indexes below `completions`; malformed parts are skipped. */
export function parseIndexes(s: string | undefined, completions: number): Set<number> {
  const out = new Set<number>();
  for (const part of (s ?? '').split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (m === null) continue;
    const from = Number(m[1]);
    const to = Math.min(m[2] !== undefined ? Number(m[2]) : from, completions - 1);
    for (let i = from; i <= to; i++) out.add(i);
  }
  return out;
}

/** Formats indexes as the compressed interval string upstream writes. */
export function formatIndexes(indexes: Iterable<number>): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(j === i ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** The first `n` indexes below `completions` that are neither completed nor held by an active pod. */
export function firstPendingIndexes(
  n: number,
  completions: number,
  completed: ReadonlySet<number>,
  active: ReadonlySet<number>,
): number[] {
  const out: number[] = [];
  for (let i = 0; i < completions && out.length < n; i++) if (!completed.has(i) && !active.has(i)) out.push(i);
  return out;
}
