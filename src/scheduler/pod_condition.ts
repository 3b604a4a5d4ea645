/**
 * Writes PodScheduled=False (reason Unschedulable or SchedulerError) and the
 * nominated node to a pod that failed to schedule, like upstream's
 * updatePod in handleSchedulingFailure: only when the condition changes,
 * asynchronously, and bounded so a storm of failures cannot flood the server.
 */
import { RESOURCES, type ClientLogger, type RESTClient, type ResourceClient } from '../client/index.js';
import type { Clock } from '../clock/index.js';
import { formatTimestamp, type Pod } from '../api/index.js';

/** Patches pods/status for scheduling failures. */
export class PodConditionUpdater {
  private readonly pods: ResourceClient<Pod>;
  private inFlight = 0;

  constructor(
    client: RESTClient,
    private readonly clock: Clock,
    private readonly log: ClientLogger,
    private readonly maxInFlight = 32,
  ) {
    this.pods = client.resource<Pod>(RESOURCES.pods);
  }

  /** Sets PodScheduled=False with `reason`/`message` (and nominatedNodeName) unless the pod already says so. */
  setUnschedulable(pod: Pod, reason: string, message: string, nominatedNodeName?: string): void {
    const cur = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    const sameCond = cur !== undefined && cur.status === 'False' && cur.reason === reason && cur.message === message;
    const sameNominated = nominatedNodeName === undefined || pod.status?.nominatedNodeName === nominatedNodeName;
    if ((sameCond && sameNominated) || this.inFlight >= this.maxInFlight) return;
    const now = formatTimestamp(this.clock.now());
    const status: Record<string, unknown> = {
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          reason,
          message,
          lastProbeTime: null,
          lastTransitionTime: cur?.status === 'False' ? cur.lastTransitionTime : now,
        },
      ],
    };
    if (nominatedNodeName !== undefined) status.nominatedNodeName = nominatedNodeName;
    this.inFlight++;
    this.pods
      .patchStatus(pod.metadata?.name ?? '', 'strategic', { status }, { namespace: pod.metadata?.namespace ?? '' })
      .catch((err: unknown) =>
        this.log.debug({ pod: pod.metadata?.name, err: String(err) }, 'pod condition not updated'),
      )
      .finally(() => this.inFlight--);
  }
}
