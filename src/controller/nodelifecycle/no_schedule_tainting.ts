/**
 * doNoScheduleTaintingPass's taint computation, like upstream's
 * nodeConditionToTaintKeyStatusMap: each node condition that blocks
 * scheduling maps to a NoSchedule taint, kept in sync with the conditions.
 */
import {
  TAINT_NODE_DISK_PRESSURE,
  TAINT_NODE_MEMORY_PRESSURE,
  TAINT_NODE_NETWORK_UNAVAILABLE,
  TAINT_NODE_NOT_READY,
  TAINT_NODE_PID_PRESSURE,
  TAINT_NODE_UNREACHABLE,
  TAINT_NODE_UNSCHEDULABLE,
} from '../nodeutil/index.js';
import { matchTaint, type Node, type Taint } from '../../api/index.js';

const CONDITION_TO_TAINT: Record<string, Record<string, string>> = {
  Ready: { False: TAINT_NODE_NOT_READY, Unknown: TAINT_NODE_UNREACHABLE },
  MemoryPressure: { True: TAINT_NODE_MEMORY_PRESSURE },
  DiskPressure: { True: TAINT_NODE_DISK_PRESSURE },
  NetworkUnavailable: { True: TAINT_NODE_NETWORK_UNAVAILABLE },
  PIDPressure: { True: TAINT_NODE_PID_PRESSURE },
};

const CONDITION_TAINT_KEYS = new Set(Object.values(CONDITION_TO_TAINT).flatMap((m) => Object.values(m)));

/** The NoSchedule taints to add and remove so the node's taints match its conditions and spec.unschedulable. */
export function noScheduleTaintChanges(node: Node): { add: Taint[]; remove: Taint[] } {
  const want: Taint[] = [];
  for (const c of node.status?.conditions ?? []) {
    const key = CONDITION_TO_TAINT[c.type]?.[c.status];
    if (key !== undefined) want.push({ key, effect: 'NoSchedule' });
  }
  if (node.spec?.unschedulable === true) want.push({ key: TAINT_NODE_UNSCHEDULABLE, effect: 'NoSchedule' });
  const have = (node.spec?.taints ?? []).filter(
    (t) => t.effect === 'NoSchedule' && (t.key === TAINT_NODE_UNSCHEDULABLE || CONDITION_TAINT_KEYS.has(t.key)),
  );
  return {
    add: want.filter((w) => !have.some((h) => matchTaint(h, w))),
    remove: have.filter((h) => !want.some((w) => matchTaint(h, w))),
  };
}
