/**
 * The pod failure back-off, like pkg/controller/job/backoff_utils.go: after
 * k consecutive failures (since the last success) a new pod waits
 * base * 2^(k-1), capped, counted from the last failure. kscale derives the
 * record from the pods' finish times instead of keeping it in memory, so a
 * restarted controller keeps the same back-off.
 */
import { getCondition } from '../nodeutil/index.js';
import { parseTimestamp, type Pod } from '../../api/index.js';

/** When the pod's containers finished (latest), else its Ready condition's last change, else its creation. */
export function podFinishTime(pod: Pod): number {
  let t: number | undefined;
  for (const c of pod.status?.containerStatuses ?? []) {
    const f = parseTimestamp(c.state?.terminated?.finishedAt);
    if (f !== undefined && (t === undefined || f > t)) t = f;
  }
  return (
    t ??
    parseTimestamp(getCondition(pod.status?.conditions, 'Ready')?.lastTransitionTime) ??
    parseTimestamp(pod.metadata?.creationTimestamp) ??
    0
  );
}

/** How long to wait before creating pods, given the Job's finished pods; 0 when no back-off applies. */
export function remainingBackoffMs(pods: readonly Pod[], nowMs: number, baseMs: number, maxMs: number): number {
  let lastSuccess = -Infinity;
  for (const p of pods) if (p.status?.phase === 'Succeeded') lastSuccess = Math.max(lastSuccess, podFinishTime(p));
  let failures = 0;
  let lastFailure = -Infinity;
  for (const p of pods) {
    if (p.status?.phase !== 'Failed') continue;
    const t = podFinishTime(p);
    if (t < lastSuccess) continue;
    failures++;
    lastFailure = Math.max(lastFailure, t);
  }
  if (failures === 0) return 0;
  const backoff = Math.min(maxMs, baseMs * 2 ** (failures - 1));
  return Math.max(0, lastFailure + backoff - nowMs);
}
