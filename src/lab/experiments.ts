/**
 * Experiments: one per big-cluster lesson. Each runs the same scenario once
 * per variant, changing one setting, and writes a side-by-side report.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectCapabilities, type Capabilities } from './components.js';
import type { LabConfig } from './config.js';
import { renderComparison, type ComparisonRun } from './compare.js';
import { loadScenario } from './scenario.js';
import type { LabHooks } from './run.js';
import { runLab } from './run.js';

/** One setting of an experiment. */
export interface Variant {
  label: string;
  apply: (c: LabConfig) => void;
}

/** An experiment: the lesson it shows, the scenario it runs, and its variants. */
export interface Experiment {
  name: string;
  /** The lesson, in one sentence. */
  lesson: string;
  /** The figures to look at, in a few words. */
  watch: string;
  scenario: string;
  /** Defaults of this experiment (node count, pods), applied before the user's flags. */
  defaults?: Partial<Pick<LabConfig, 'nodes' | 'podsPerNode' | 'podRate'>>;
  /** A component this build must have. */
  needs?: keyof Capabilities;
  variants: Variant[];
}

const NEEDS: Record<keyof Capabilities, string> = {
  scheduler: '`kscale scheduler`',
  workloadControllers: 'the workload controllers in `kscale controller-manager`',
  hollowProxy: '`kscale nodes --hollow-proxy`',
};

/** What this build has; a parameter of runExperiment's caller in tests. */
let capabilities: () => Capabilities = detectCapabilities;

/** Replaces capability detection (tests). */
export function setCapabilityProbe(probe: () => Capabilities): void {
  capabilities = probe;
}

const grace = (freqS: number): string => `${Math.max(50, 5 * freqS)}s`;

/** Every experiment, by name. */
export const EXPERIMENTS: Experiment[] = [
  {
    name: 'watch-cache',
    lesson:
      "The watch cache serves lists and watches from the API server's memory, so reads stop costing storage work: turn it off and every LIST and watch start reads the database.",
    watch: 'list p99, storage ops/s, server CPU',
    scenario: 'load',
    variants: [
      { label: 'watch-cache=on', apply: (c) => (c.server.watchCache = true) },
      { label: 'watch-cache=off', apply: (c) => (c.server.watchCache = false) },
    ],
  },
  {
    name: 'node-heartbeat',
    lesson:
      'Node leases make the heartbeat a tiny Lease write, where a status heartbeat rewrites the whole large Node object (and fans it out to every Node watcher) every period; a shorter period multiplies that cost.',
    watch: 'API QPS, storage bytes/s, watch events/s, server CPU',
    scenario: 'nodes',
    variants: [
      { label: 'lease, status 10s', apply: (c) => setHeartbeat(c, 'lease', 10) },
      { label: 'status 1s', apply: (c) => setHeartbeat(c, 'status', 1) },
      { label: 'status 10s', apply: (c) => setHeartbeat(c, 'status', 10) },
      { label: 'status 40s', apply: (c) => setHeartbeat(c, 'status', 40) },
    ],
  },
  {
    name: 'node-monitor',
    lesson:
      "The node monitor's grace period trades detection time of dead nodes against tolerance of slow heartbeats; its period sets how often every node is checked.",
    watch: 'kill phase detection time, API QPS',
    scenario: 'node-failure',
    defaults: { nodes: 50 },
    variants: [
      { label: 'period 5s, grace 50s (upstream)', apply: (c) => setMonitor(c, '5s', '50s') },
      { label: 'period 1s, grace 20s', apply: (c) => setMonitor(c, '1s', '20s') },
      { label: 'period 5s, grace 20s', apply: (c) => setMonitor(c, '5s', '20s') },
    ],
  },
  {
    name: 'events-store',
    lesson:
      'Events are the most-written objects in a busy cluster; in their own etcd their writes and compactions no longer compete with pods and nodes, which is one of the two conditions the SLOs assume.',
    watch: 'mutating p99, pod startup p99',
    scenario: 'load',
    variants: [
      { label: 'one etcd', apply: (c) => (c.server.labEtcd = 'main') },
      { label: 'events in their own etcd', apply: (c) => (c.server.labEtcd = 'main+events') },
    ],
  },
  {
    name: 'endpoints',
    lesson:
      "EndpointSlices split a Service's endpoints into slices of 100, so a pod change rewrites one small slice instead of the whole Endpoints object, and every node's proxy watching it receives a slice, not the whole list.",
    watch: 'watch events/s, storage bytes/s, server CPU',
    scenario: 'load',
    needs: 'workloadControllers',
    // Every hollow node runs its proxy's watches (kube-proxy's load on the control plane); 1% also compute rules.
    variants: [
      { label: 'EndpointSlices, proxies watch slices', apply: (c) => setEndpoints(c, 'endpointslices') },
      { label: 'Endpoints too, proxies watch Endpoints', apply: (c) => setEndpoints(c, 'endpoints') },
    ],
  },
  {
    name: 'security',
    lesson:
      'Secure serving is not free: every connection pays a TLS handshake and every request authentication, Node and RBAC authorization; measured against the plain-HTTP lab port with AlwaysAllow, what it costs shows in server CPU per request and connection memory, and it must not cost an SLO.',
    watch: 'server CPU per request, server and fleet peak RSS, node join time, every SLO',
    scenario: 'load',
    variants: [
      { label: 'TLS, Node,RBAC', apply: (c) => (c.server.insecure = false) },
      { label: 'insecure port, AlwaysAllow', apply: (c) => (c.server.insecure = true) },
    ],
  },
  {
    name: 'throttling',
    lesson:
      "API Priority and Fairness gives every kind of client its own share of the server: a noisy neighbour's flood of LISTs and writes waits in its own priority level's queues and gets the 429s, while node heartbeats keep their seats; with max-in-flight alone the flood takes the mutating slots the Lease renewals need, and the nodes get the 429s.",
    watch:
      'Lease write p99, Lease 429s, nodes NotReady, 429s per priority level, server event loop lag and CPU, neighbour CPU',
    scenario: 'throttling',
    variants: [
      { label: 'APF, noisy neighbour', apply: (c) => setThrottling(c, true) },
      { label: 'max-in-flight only, noisy neighbour', apply: (c) => setThrottling(c, false) },
    ],
  },
  {
    name: 'proxy-mode',
    lesson:
      'The iptables proxier rewrites its whole ruleset on each sync (O(services)), while nftables and IPVS apply only the changes, so proxy CPU grows with cluster size only in iptables mode.',
    watch: 'fleet CPU',
    scenario: 'load',
    needs: 'hollowProxy',
    variants: (['iptables', 'nftables', 'ipvs'] as const).map((m) => ({
      label: `proxy ${m}`,
      apply: (c: LabConfig) => (c.fleet.proxyMode = m),
    })),
  },
  {
    name: 'scheduler',
    lesson:
      'Scoring only a sample of the feasible nodes (percentageOfNodesToScore) keeps scheduling fast at thousands of nodes; bin-packing and spreading differ in where pods go, not in cost.',
    watch: 'scheduling throughput, create → scheduled p99, scheduler CPU',
    scenario: 'pods',
    needs: 'scheduler',
    variants: [
      { label: 'adaptive percentage, spreading', apply: (c) => setSchedulerConfig(c, undefined, 'LeastAllocated') },
      { label: '100% of nodes, spreading', apply: (c) => setSchedulerConfig(c, 100, 'LeastAllocated') },
      { label: 'adaptive percentage, bin-packing', apply: (c) => setSchedulerConfig(c, undefined, 'MostAllocated') },
    ],
  },
];

function setEndpoints(c: LabConfig, watch: 'endpointslices' | 'endpoints'): void {
  c.fleet.proxyMode = 'iptables';
  c.fleet.proxyWatch = watch;
  // Upstream's controller names: without endpoints-controller nothing writes Endpoints objects.
  c.controllerManager.extraArgs.push(
    watch === 'endpoints' ? '--controllers=*' : '--controllers=*,-endpoints-controller',
  );
}

function setHeartbeat(c: LabConfig, mode: 'lease' | 'status', freqS: number): void {
  c.fleet.heartbeat = mode;
  c.fleet.nodeStatusUpdateFrequency = `${freqS}s`;
  // The grace period must stay well above the update period, or healthy nodes flap to Unknown.
  c.controllerManager.nodeMonitorGracePeriod = grace(freqS);
}

function setMonitor(c: LabConfig, period: string, gracePeriod: string): void {
  c.controllerManager.nodeMonitorPeriod = period;
  c.controllerManager.nodeMonitorGracePeriod = gracePeriod;
}

/**
 * The noisy neighbour of issue 25: a ServiceAccount (workload-low under APF) with 50 cluster-wide pod LISTs and
 * 250 ConfigMap writes in flight, more than the 200 mutating slots; the fleet heartbeats as system:nodes
 * (node-high), so neither is the exempt system:masters. The server keeps its default 400/200 limits either way.
 */
function setThrottling(c: LabConfig, apf: boolean): void {
  c.fleet.identity = 'node-group';
  // --noisy-neighbour may set a smaller load (a tiny test cluster); the is the default.
  if (c.noisyNeighbour.listsInFlight + c.noisyNeighbour.writesInFlight === 0)
    c.noisyNeighbour = { listsInFlight: 50, writesInFlight: 250 };
  c.server.extraArgs.push(`--enable-priority-and-fairness=${apf}`);
}

function setSchedulerConfig(
  c: LabConfig,
  percentage: number | undefined,
  strategy: 'LeastAllocated' | 'MostAllocated',
): void {
  const file = join(c.reportDir, 'scheduler-config.yaml');
  mkdirSync(c.reportDir, { recursive: true });
  writeFileSync(
    file,
    [
      'apiVersion: kubescheduler.config.k8s.io/v1',
      'kind: KubeSchedulerConfiguration',
      ...(percentage !== undefined ? [`percentageOfNodesToScore: ${percentage}`] : []),
      'profiles:',
      '  - schedulerName: default-scheduler',
      '    pluginConfig:',
      '      - name: NodeResourcesFit',
      '        args:',
      '          scoringStrategy:',
      `            type: ${strategy}`,
      '',
    ].join('\n'),
  );
  c.scheduler.extraArgs.push('--config', file);
}

/** Finds an experiment; throws listing the names when there is none. */
export function experimentNamed(name: string): Experiment {
  const e = EXPERIMENTS.find((x) => x.name === name);
  if (e === undefined) throw new Error(`no experiment "${name}"; one of: ${EXPERIMENTS.map((x) => x.name).join(', ')}`);
  return e;
}

/**
 * Runs every variant of an experiment in turn (each a full lab run in its
 * own sub-folder), then writes comparison.json and comparison.html.
 * `base` builds a fresh config (the user's flags applied) for a report folder.
 */
export async function runExperiment(
  e: Experiment,
  base: (reportDir: string, scenario: ReturnType<typeof loadScenario>) => LabConfig,
  reportDir: string,
  hooks: LabHooks = {},
): Promise<ComparisonRun[]> {
  const scenario = loadScenario(e.scenario);
  if (e.needs !== undefined && !capabilities()[e.needs])
    throw new Error(`experiment ${e.name} needs ${NEEDS[e.needs]}, which this build does not have`);
  const runs: ComparisonRun[] = [];
  for (const [i, v] of e.variants.entries()) {
    if (hooks.signal?.aborted === true) break;
    const dir = join(
      reportDir,
      `${i + 1}-${v.label
        .replace(/[^a-zA-Z0-9]+/g, '-')
        .replace(/^-|-$/g, '')
        .toLowerCase()}`,
    );
    const c = base(dir, scenario);
    v.apply(c);
    hooks.progress?.log(`experiment ${e.name}: variant ${i + 1}/${e.variants.length}: ${v.label}`);
    const out = await runLab(c, hooks);
    runs.push({ label: v.label, dir, report: out.report });
  }
  mkdirSync(reportDir, { recursive: true });
  const { json, html } = renderComparison(e, runs);
  writeFileSync(join(reportDir, 'comparison.json'), `${JSON.stringify(json, null, 1)}\n`);
  writeFileSync(join(reportDir, 'comparison.html'), html);
  return runs;
}
