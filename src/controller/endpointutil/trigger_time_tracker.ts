/**
 * TriggerTimeTracker, like pkg/controller/util/endpoint's: the value of the
 * `endpoints.kubernetes.io/last-change-trigger-time` annotation. For each
 * Service it remembers the trigger time of every pod (its Ready condition's
 * last transition) and of the Service (its creation); a sync's trigger time
 * is the earliest of those that changed since the previous sync, so the
 * annotation tells how long the change took to reach the endpoints.
 */
import { getCondition } from '../nodeutil/index.js';
import { parseTimestamp, type Pod, type Service } from '../../api/index.js';

interface ServiceState {
  lastServiceTriggerTime: number | undefined;
  lastPodTriggerTimes: Map<string, number>;
}

/** Remembers per-Service trigger times between syncs. */
export class TriggerTimeTracker {
  private readonly services = new Map<string, ServiceState>();

  /** The earliest trigger time that changed since the last call for this Service, or undefined. */
  computeEndpointLastChangeTriggerTime(key: string, svc: Service, pods: readonly Pod[]): number | undefined {
    let state = this.services.get(key);
    const first = state === undefined;
    state ??= { lastServiceTriggerTime: undefined, lastPodTriggerTimes: new Map() };
    let min: number | undefined;
    const consider = (t: number): void => void (min = min === undefined ? t : Math.min(min, t));
    const podTimes = new Map<string, number>();
    for (const pod of pods) {
      const t = parseTimestamp(getCondition(pod.status?.conditions, 'Ready')?.lastTransitionTime);
      if (t === undefined) continue;
      const name = pod.metadata?.name ?? '';
      podTimes.set(name, t);
      if (state.lastPodTriggerTimes.get(name) !== t) consider(t);
    }
    const svcTime = parseTimestamp(svc.metadata?.creationTimestamp);
    // The Service's own trigger counts once: when the tracker first sees it (its creation).
    if (svcTime !== undefined && (first || state.lastServiceTriggerTime !== svcTime)) consider(svcTime);
    this.services.set(key, { lastServiceTriggerTime: svcTime, lastPodTriggerTimes: podTimes });
    return min;
  }

  /** Forgets a deleted Service. */
  deleteService(key: string): void {
    this.services.delete(key);
  }
}
