/**
 * Pod statuses a hollow kubelet writes, shaped like upstream's
 * generateAPIPodStatus: the five pod conditions in upstream's order, host
 * and pod IPs, and container statuses with containerd-style IDs. Each is a
 * strategic merge patch for pods/status that carries metadata.uid, which the
 * API server checks like a precondition, as upstream's status manager does.
 */
import { createHash } from 'node:crypto';
import { formatTimestamp, type Pod } from '../api/index.js';

/** Where and when a pod runs. */
export interface PodRun {
  hostIP: string;
  podIP: string;
  /** When the kubelet first saw the pod (status.startTime). */
  startTime: number;
  /** When its containers started. */
  startedAt: number;
}

type Condition = {
  type: string;
  status: 'True' | 'False';
  lastProbeTime: null;
  lastTransitionTime: string;
  reason?: string;
};

function conditions(ready: boolean, at: string, scheduledAt: string, reason?: string): Condition[] {
  const c = (type: string, status: boolean, when: string, why?: string): Condition => ({
    type,
    status: status ? 'True' : 'False',
    lastProbeTime: null,
    lastTransitionTime: when,
    ...(why !== undefined ? { reason: why } : {}),
  });
  return [
    c('PodReadyToStartContainers', true, scheduledAt),
    c('Initialized', true, scheduledAt, reason),
    c('Ready', ready, at, ready ? undefined : reason),
    c('ContainersReady', ready, at, ready ? undefined : reason),
    c('PodScheduled', true, scheduledAt),
  ];
}

/** A stable fake digest for an image reference. */
function imageID(image: string): string {
  const repo = image.split('@')[0]!.replace(/:[^/:]*$/, '');
  const full = repo.includes('/') ? repo : `docker.io/library/${repo}`;
  return `${full}@sha256:${createHash('sha256').update(image).digest('hex')}`;
}

function containerID(pod: Pod, name: string): string {
  return `containerd://${createHash('sha256')
    .update(`${pod.metadata?.uid ?? ''}/${name}`)
    .digest('hex')}`;
}

type State =
  | { running: { startedAt: string } }
  | { terminated: { exitCode: number; reason: string; startedAt: string; finishedAt: string; containerID: string } };

function containerStatuses(
  pod: Pod,
  list: { name: string; image?: string }[],
  state: (cid: string) => State,
  ready: boolean,
): unknown[] {
  return list.map((c) => {
    const cid = containerID(pod, c.name);
    const image = c.image ?? 'registry.k8s.io/pause:3.10';
    return {
      name: c.name,
      state: state(cid),
      ready,
      restartCount: 0,
      image,
      imageID: imageID(image),
      containerID: cid,
      started: ready,
    };
  });
}

function ips(run: PodRun): Record<string, unknown> {
  return {
    hostIP: run.hostIP,
    hostIPs: [{ ip: run.hostIP }],
    podIP: run.podIP,
    podIPs: [{ ip: run.podIP }],
    startTime: formatTimestamp(run.startTime),
  };
}

function initStatuses(pod: Pod, run: PodRun): Record<string, unknown> {
  const inits = pod.spec?.initContainers ?? [];
  if (inits.length === 0) return {};
  const at = formatTimestamp(run.startedAt);
  return {
    initContainerStatuses: containerStatuses(
      pod,
      inits,
      (cid) => ({ terminated: { exitCode: 0, reason: 'Completed', startedAt: at, finishedAt: at, containerID: cid } }),
      false,
    ),
  };
}

function scheduledAt(pod: Pod, run: PodRun): string {
  return formatTimestamp(Math.min(run.startTime, Date.parse(pod.metadata?.creationTimestamp ?? '') || run.startTime));
}

/** The patch that makes a pod Running with every container ready. */
export function runningPatch(pod: Pod, run: PodRun): unknown {
  const at = formatTimestamp(run.startedAt);
  return {
    metadata: { uid: pod.metadata?.uid },
    status: {
      phase: 'Running',
      conditions: conditions(true, at, scheduledAt(pod, run)),
      ...ips(run),
      ...initStatuses(pod, run),
      containerStatuses: containerStatuses(
        pod,
        pod.spec?.containers ?? [],
        () => ({ running: { startedAt: at } }),
        true,
      ),
    },
  };
}

/**
 * The patch of a pod whose containers have exited: Succeeded (every exit code
 * 0, as a Job's pod that completes) or Failed, containers terminated and not ready.
 */
export function terminatedPatch(pod: Pod, run: PodRun, finishedAt: number, exitCode: number): unknown {
  const start = formatTimestamp(run.startedAt);
  const end = formatTimestamp(finishedAt);
  const reason = exitCode === 0 ? 'Completed' : 'Error';
  return {
    metadata: { uid: pod.metadata?.uid },
    status: {
      phase: exitCode === 0 ? 'Succeeded' : 'Failed',
      conditions: conditions(false, end, scheduledAt(pod, run), 'PodCompleted'),
      ...ips(run),
      ...initStatuses(pod, run),
      containerStatuses: containerStatuses(
        pod,
        pod.spec?.containers ?? [],
        (cid) => ({ terminated: { exitCode, reason, startedAt: start, finishedAt: end, containerID: cid } }),
        false,
      ),
    },
  };
}

/** A pod annotation that makes a hollow kubelet end a Job's pod with this exit code (non-zero: Failed), for tests of failures. */
export const ANNOTATION_SIMULATED_EXIT_CODE = 'kscale.io/simulated-exit-code';

/** The exit code a Job's pod ends with: 0 unless the pod asks for another through the annotation. */
export function simulatedExitCode(pod: Pod): number {
  const v = Number(pod.metadata?.annotations?.[ANNOTATION_SIMULATED_EXIT_CODE] ?? '0');
  return Number.isInteger(v) && v >= 0 && v <= 255 ? v : 0;
}

/** True when a Job owns the pod, so it runs to completion instead of forever. */
export function ownedByJob(pod: Pod): boolean {
  return (pod.metadata?.ownerReferences ?? []).some((o) => o.kind === 'Job');
}

/** True for Succeeded and Failed pods, which the kubelet leaves alone. */
export function isTerminal(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}
