/**
 * The admission plugins that fill pod fields upstream: DefaultTolerationSeconds
 * (not-ready/unreachable NoExecute tolerations) and Priority (spec.priority
 * from the PriorityClass).
 */
import { forbidden } from './status.js';
import { isObject, type KubeObject } from './types.js';

/** The taint the node lifecycle controller puts on NotReady nodes. */
export const TAINT_NODE_NOT_READY = 'node.kubernetes.io/not-ready';
/** The taint the node lifecycle controller puts on nodes whose status is Unknown. */
export const TAINT_NODE_UNREACHABLE = 'node.kubernetes.io/unreachable';

/**
 * DefaultTolerationSeconds: unless the pod already tolerates them, adds NoExecute tolerations
 * for not-ready and unreachable nodes (flags --default-not-ready-toleration-seconds and
 * --default-unreachable-toleration-seconds, both 300).
 */
export function addDefaultTolerations(pod: KubeObject, notReadySeconds = 300, unreachableSeconds = 300): void {
  const spec: Record<string, unknown> = isObject(pod.spec) ? pod.spec : (pod.spec = {});
  const tolerations = Array.isArray(spec.tolerations) ? (spec.tolerations as Record<string, unknown>[]) : [];
  const tolerates = (key: string): boolean =>
    tolerations.some((t) => (t.key === key || !t.key) && (t.effect === 'NoExecute' || !t.effect));
  const add: Record<string, unknown>[] = [];
  if (!tolerates(TAINT_NODE_NOT_READY))
    add.push({
      key: TAINT_NODE_NOT_READY,
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: notReadySeconds,
    });
  if (!tolerates(TAINT_NODE_UNREACHABLE))
    add.push({
      key: TAINT_NODE_UNREACHABLE,
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: unreachableSeconds,
    });
  if (add.length) spec.tolerations = [...tolerations, ...add];
}

/** What the Priority plugin needs to know about a PriorityClass. */
export interface PriorityClassInfo {
  name: string;
  value: number;
  preemptionPolicy?: string;
  globalDefault?: boolean;
}

/**
 * Priority admission: resolves spec.priorityClassName (or the global default class) into
 * spec.priority and spec.preemptionPolicy; with no class at all the priority is 0.
 * Throws 403 when the named class does not exist, as upstream.
 */
export function admitPodPriority(
  pod: KubeObject,
  lookup: (name: string) => PriorityClassInfo | undefined,
  globalDefault?: PriorityClassInfo,
): void {
  const spec: Record<string, unknown> = isObject(pod.spec) ? pod.spec : (pod.spec = {});
  const name = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
  let pc: PriorityClassInfo | undefined;
  if (name) {
    pc = lookup(name);
    if (!pc) throw forbidden('pods', pod.metadata?.name ?? '', `no PriorityClass with name ${name} was found`);
  } else if (globalDefault) {
    pc = globalDefault;
    spec.priorityClassName = globalDefault.name;
  }
  const priority = pc?.value ?? 0;
  if (typeof spec.priority === 'number' && spec.priority !== priority)
    throw forbidden(
      'pods',
      pod.metadata?.name ?? '',
      `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`,
    );
  spec.priority = priority;
  spec.preemptionPolicy = pc?.preemptionPolicy ?? 'PreemptLowerPriority';
}
