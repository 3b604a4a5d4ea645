/**
 * The pods' Table columns, as upstream's printPod: READY, the STATUS reason
 * derived from phase, init and container states, and RESTARTS with "(5m ago)".
 */
import type {
  Container,
  ContainerStatus,
  KubeObject,
  Pod,
  PodCondition,
  PodSpec,
  PodStatus,
  TableRowCondition,
} from '../../../api/index.js';
import {
  ageColumn,
  column,
  docs,
  humanDuration,
  int,
  nameColumn,
  parseTime,
  str,
  timestampSince,
  type PrintedRow,
  type ResourcePrinter,
} from '../printers/index.js';

/** The pod reason the node lifecycle controller sets on pods of an unreachable node. */
const NODE_UNREACHABLE_POD_REASON = 'NodeLost';

const podSucceeded: TableRowCondition[] = [
  { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
];
const podFailed: TableRowCondition[] = [
  { type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' },
];

function isRestartable(c: Container | undefined): boolean {
  // A sidecar: an init container with restartPolicy Always.
  return c?.restartPolicy === 'Always';
}

function conditionTrue(conds: PodCondition[] | undefined, type: string): boolean {
  // Like upstream, the first condition of the type decides.
  const c = (conds ?? []).find((x) => x.type === type);
  return c?.status === 'True';
}

/** Tracks the latest lastState.terminated.finishedAt, as a metav1.Time compared with Before. */
function later(current: number | undefined, s: ContainerStatus): number | undefined {
  const t = parseTime(s.lastState?.terminated?.finishedAt);
  if (t === undefined) return current;
  return current === undefined || current < t ? t : current;
}

/** STATUS, READY and RESTARTS for one pod, following upstream's printPod step by step. */
function podCells(pod: Pod, now: number): { reason: string; ready: string; restarts: string } {
  const spec: Partial<PodSpec> = pod.spec ?? {};
  const status: PodStatus = pod.status ?? {};
  const initSpecs = new Map((spec.initContainers ?? []).map((c) => [c.name ?? '', c]));
  let total = (spec.containers ?? []).length;
  for (const c of spec.initContainers ?? []) if (isRestartable(c)) total++;
  let ready = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart: number | undefined;
  let lastSidecarRestart: number | undefined;

  let reason = str(status.phase);
  if (status.reason) reason = status.reason;
  for (const c of status.conditions ?? []) {
    if (c.type === 'PodScheduled' && c.reason === 'SchedulingGated') reason = 'SchedulingGated';
  }

  const initStatuses = status.initContainerStatuses ?? [];
  let initializing = false;
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i];
    const sidecar = isRestartable(initSpecs.get(cs.name ?? ''));
    restarts += int(cs.restartCount);
    lastRestart = later(lastRestart, cs);
    if (sidecar) {
      sidecarRestarts += int(cs.restartCount);
      lastSidecarRestart = later(lastSidecarRestart, cs);
    }
    const term = cs.state?.terminated;
    const waiting = cs.state?.waiting;
    if (term && int(term.exitCode) === 0) continue;
    if (sidecar && cs.started === true) {
      if (cs.ready) ready++;
      continue;
    }
    if (term) {
      if (!term.reason) {
        reason = int(term.signal) !== 0 ? `Init:Signal:${int(term.signal)}` : `Init:ExitCode:${int(term.exitCode)}`;
      } else {
        reason = `Init:${term.reason}`;
      }
    } else if (waiting?.reason && waiting.reason !== 'PodInitializing') {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${i}/${(spec.initContainers ?? []).length}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || conditionTrue(status.conditions, 'Initialized')) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = status.containerStatuses ?? [];
    // Walked backwards so the first container's state wins, like upstream.
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i];
      restarts += int(cs.restartCount);
      lastRestart = later(lastRestart, cs);
      const term = cs.state?.terminated;
      if (cs.state?.waiting?.reason) {
        reason = cs.state.waiting.reason;
      } else if (term?.reason) {
        reason = term.reason;
      } else if (term) {
        reason = int(term.signal) !== 0 ? `Signal:${int(term.signal)}` : `ExitCode:${int(term.exitCode)}`;
      } else if (cs.ready && cs.state?.running) {
        hasRunning = true;
        ready++;
      }
    }
    // A pod whose finished container says Completed is still running while any container runs.
    if (reason === 'Completed' && hasRunning) {
      reason = conditionTrue(status.conditions, 'Ready') ? 'Running' : 'NotReady';
    }
  }

  const deleting = !!pod.metadata?.deletionTimestamp;
  if (deleting && status.reason === NODE_UNREACHABLE_POD_REASON) {
    reason = 'Unknown';
  } else if (deleting && status.phase !== 'Succeeded' && status.phase !== 'Failed') {
    reason = 'Terminating';
  }

  let restartsCell = String(restarts);
  if (restarts !== 0 && lastRestart !== undefined) {
    restartsCell = `${restarts} (${humanDuration(now - lastRestart)} ago)`;
  }
  return { reason, ready: `${ready}/${total}`, restarts: restartsCell };
}

function readinessGates(pod: Pod): string {
  const gates = pod.spec?.readinessGates ?? [];
  if (gates.length === 0) return '<none>';
  let trueCount = 0;
  for (const gate of gates) {
    const c = (pod.status?.conditions ?? []).find((x) => x.type === gate.conditionType);
    if (c?.status === 'True') trueCount++;
  }
  return `${trueCount}/${gates.length}`;
}

function printPod(obj: KubeObject, now: number): PrintedRow {
  const pod = obj as Pod;
  const { reason, ready, restarts } = podCells(pod, now);
  const ip = pod.status?.podIPs?.[0]?.ip || pod.status?.podIP || '<none>';
  const row: PrintedRow = {
    cells: [
      str(pod.metadata?.name),
      ready,
      reason,
      restarts,
      timestampSince(pod.metadata?.creationTimestamp, now),
      ip,
      pod.spec?.nodeName || '<none>',
      pod.status?.nominatedNodeName || '<none>',
      readinessGates(pod),
    ],
  };
  if (pod.status?.phase === 'Succeeded') row.conditions = podSucceeded;
  if (pod.status?.phase === 'Failed') row.conditions = podFailed;
  return row;
}

/** Pods: NAME READY STATUS RESTARTS AGE, wide IP NODE NOMINATED NODE READINESS GATES. */
export const podTable: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'string', 'The aggregate status of the containers in this pod.'),
    column(
      'Restarts',
      'string',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    ),
    ageColumn(),
    column('IP', 'string', docs.podStatusPodIP, { wide: true }),
    column('Node', 'string', docs.podSpecNodeName, { wide: true }),
    column('Nominated Node', 'string', docs.podStatusNominatedNodeName, { wide: true }),
    column('Readiness Gates', 'string', docs.podSpecReadinessGates, { wide: true }),
  ],
  print: printPod,
};
