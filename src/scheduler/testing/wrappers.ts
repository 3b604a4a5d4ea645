/**
 * Test helpers for scheduler plugins, like upstream's pkg/scheduler/testing:
 * nodes and pods from plain objects, a snapshot built in memory, a Handle
 * with no server behind it, and runners that drive one plugin through
 * PreFilter/Filter or PreScore/Score/NormalizeScore over every node.
 */
import { SharedInformerFactory, type RESTClient } from '../../client/index.js';
import { FakeClock } from '../../clock/index.js';
import { SchedulerCache } from '../cache/cache.js';
import { CycleState } from '../framework/cycle_state.js';
import type {
  FilterPlugin,
  Handle,
  PreFilterPlugin,
  PreScorePlugin,
  ScorePlugin,
  WaitingPod,
} from '../framework/interface.js';
import { newPodInfo, type PodInfo } from '../framework/pod_info.js';
import { Code, type MaybeStatus } from '../framework/status.js';
import type { Container, Node, Pod, Taint } from '../../api/index.js';

/** What a test node has: allocatable (cpu, memory, pods, extended resources), labels, taints, cordon. */
export interface NodeOptions {
  allocatable?: Record<string, string | number>;
  labels?: Record<string, string>;
  taints?: Taint[];
  unschedulable?: boolean;
}

/** A Node with 4 CPUs, 8Gi and 110 pods unless `spec.allocatable` says otherwise. */
export function makeNode(name: string, spec: NodeOptions = {}): Node {
  return {
    metadata: { name, labels: spec.labels ?? {} },
    spec: {
      ...(spec.taints !== undefined ? { taints: spec.taints } : {}),
      ...(spec.unschedulable === true ? { unschedulable: true } : {}),
    },
    status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110', ...spec.allocatable } },
  };
}

/** What a test pod has: one container's requests and host ports, labels, and any other spec fields. */
export interface PodOptions {
  requests?: Record<string, string | number>;
  hostPorts?: { hostPort: number; protocol?: string; hostIP?: string }[];
  labels?: Record<string, string>;
  namespace?: string;
  spec?: Partial<NonNullable<Pod['spec']>>;
}

/** A PodInfo of a pod in namespace "default" (uid = name) with one container. */
export function makePod(name: string, p: PodOptions = {}): PodInfo {
  const container: Container = {
    name: 'c',
    ...(p.requests !== undefined ? { resources: { requests: p.requests } } : {}),
    ...(p.hostPorts !== undefined ? { ports: p.hostPorts.map((hp) => ({ containerPort: hp.hostPort, ...hp })) } : {}),
  };
  return newPodInfo({
    metadata: { name, namespace: p.namespace ?? 'default', uid: name, labels: p.labels ?? {} },
    spec: { containers: [container], ...p.spec },
  });
}

/** A cache (the scheduler's Snapshot) holding `nodes` and the pods placed on them. */
export function makeSnapshot(nodes: Node[], placed: [PodInfo, string][] = []): SchedulerCache {
  const c = new SchedulerCache();
  for (const n of nodes) c.setNode(n);
  for (const [p, node] of placed) c.addPod(p, node);
  return c;
}

/** A Handle over `snapshot` with no server: its client fails every call, its informers are never started. */
export function fakeHandle(snapshot: SchedulerCache, extra: Partial<Handle> = {}): Handle {
  const client = { resource: () => ({}) } as unknown as RESTClient;
  const informers = new SharedInformerFactory(client);
  return {
    client,
    clock: new FakeClock(),
    recorder: { event: () => undefined } as unknown as Handle['recorder'],
    snapshot: () => snapshot,
    waitingPods: (): WaitingPod[] => [],
    getWaitingPod: () => undefined,
    activate: () => undefined,
    runFilterPlugins: () => null,
    runPreFilterPlugins: () => null,
    informerFactory: () => informers,
    ...extra,
  };
}

/** The reasons a status gives, "" for success. */
export const reasonOf = (s: MaybeStatus): string =>
  s === null || s.code === Code.Success ? '' : s.message() || Code[s.code];

/**
 * Runs PreFilter (when the plugin has it) then Filter on every node: node name -> reason ("" when it fits).
 * A PreFilter rejection is returned under the key "PreFilter"; a PreFilter Skip means every node fits.
 */
export function runFilter(
  plugin: FilterPlugin & Partial<PreFilterPlugin>,
  pod: PodInfo,
  snapshot: SchedulerCache,
  state = new CycleState(),
): Record<string, string> {
  if (plugin.preFilter !== undefined) {
    const s = plugin.preFilter(state, pod, snapshot);
    if (s !== null && s.code === Code.Skip) return Object.fromEntries(snapshot.nodes().map((n) => [n.name, '']));
    if (s !== null && s.code !== Code.Success) return { PreFilter: reasonOf(s) };
  }
  return Object.fromEntries(snapshot.nodes().map((n) => [n.name, reasonOf(plugin.filter(state, pod, n))]));
}

/**
 * Runs PreScore (when the plugin has it), Score on every node and NormalizeScore: node name -> score.
 * A PreScore Skip returns undefined (the framework would not score with this plugin).
 */
export function runScore(
  plugin: ScorePlugin & Partial<PreScorePlugin>,
  pod: PodInfo,
  snapshot: SchedulerCache,
  state = new CycleState(),
): Record<string, number> | undefined {
  const nodes = snapshot.nodes();
  if (plugin.preScore !== undefined) {
    const s = plugin.preScore(state, pod, nodes);
    if (s !== null && s.code === Code.Skip) return undefined;
  }
  const scores = new Float64Array(nodes.length);
  nodes.forEach((n, i) => (scores[i] = plugin.score(state, pod, n)));
  plugin.normalizeScore?.(state, pod, scores, nodes.length);
  return Object.fromEntries(nodes.map((n, i) => [n.name, scores[i]]));
}
