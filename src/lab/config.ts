/**
 * Everything that shapes a lab run. All of it goes into report.json, so two
 * reports can be compared setting by setting.
 */
import type { Scenario } from './scenario.js';
import type { WorkloadMode } from './load.js';

/** Client rate limits of one component. */
export interface ClientLimits {
  qps: number;
  burst: number;
}

/** The settings of one lab run. */
export interface LabConfig {
  nodes: number;
  podsPerNode: number;
  /** Pods per second the load generator creates (and deletes) at. */
  podRate: number;
  scenario: Scenario;
  /** 'auto' picks controllers + scheduler when this build has them. */
  mode: WorkloadMode | 'auto';
  reportDir: string;
  keepRunning: boolean;
  /** Extra seconds of measurement after the last phase. */
  settleS: number;
  /** How often /metrics and /proc are read. */
  scrapeIntervalMs: number;
  /** Run Debian's prometheus beside the lab and report ClusterLoader2's PromQL SLIs beside the lab's own. */
  prometheus?: boolean;
  /** Upper bound on each phase, ms; 0: derived from its pod count and the pod rate. */
  phaseTimeoutMs: number;
  /** Seed of the scale and rollout picks. */
  seed: number;
  server: {
    /** etcd processes the lab starts itself: none (embedded SQLite), one for everything, or a second one for Events. */
    labEtcd: 'none' | 'main' | 'main+events';
    etcdServers?: string;
    etcdServersOverrides?: string;
    storageSync: 'full' | 'normal';
    watchCache: boolean;
    maxRequestsInflight: number;
    maxMutatingRequestsInflight: number;
    /**
     * The A/B switch: serve the plain-HTTP lab port with AlwaysAllow and run every component on it. Off (the
     * default): TLS, Node,RBAC, and each component under its own identity.
     */
    insecure: boolean;
    extraArgs: string[];
  };
  controllerManager: ClientLimits & {
    /** Workers of the Deployment and ReplicaSet controllers (`--concurrent-{deployment,replicaset}-syncs`). */
    workloadSyncs: number;
    nodeMonitorPeriod: string;
    nodeMonitorGracePeriod: string;
    extraArgs: string[];
  };
  scheduler: ClientLimits & { extraArgs: string[] };
  fleet: ClientLimits & {
    /** Fleet processes sharing the node range; 0: chosen from the node count (one per 1,250 nodes). */
    processes: number;
    heartbeat: 'lease' | 'status';
    nodeStatusUpdateFrequency: string;
    podWatch: 'per-node' | 'shared';
    /**
     * csr (the default): a secure server and nodes joining through bootstrap tokens and CSRs, each with its own
     * certificate and HTTP/2 connection; shared: the lab's kubeconfig. nodeJoinOf() says which a run can use.
     */
    nodeJoin: 'csr' | 'shared';
    /** Fixed simulated container start, ms (p50 = p99: no randomness, so it can be subtracted exactly). */
    podStartupMs: number;
    joinRate: number;
    /** Keep-alive sockets each fleet process shares for short requests, split evenly between node heartbeats and pods (kscale nodes --max-connections). */
    maxConnections: number;
    /** 'off', or the hollow proxy's mode once kscale nodes has --hollow-proxy. */
    proxyMode: 'off' | 'iptables' | 'ipvs' | 'nftables';
    /** What the hollow proxies watch besides Services: EndpointSlices (kube-proxy since 1.19) or Endpoints (before). */
    proxyWatch: 'endpointslices' | 'endpoints';
    /**
     * 'admin': the fleet shares the lab's admin kubeconfig (system:masters, exempt under API Priority and Fairness);
     * 'node-group': a token of a user in system:nodes over the secure port (identities.ts), so its heartbeats are
     * classified as kubelets' (node-high).
     */
    identity: 'admin' | 'node-group';
    /**
     * The fleet processes' nice value (0 to 19; 0, the default: the control plane's priority). The hollow nodes
     * stand in for thousands of machines of their own, as kubemark's hollow nodes run on other machines than the
     * control plane they load; at 10 they take the CPU the control plane leaves rather than share it evenly. Not the
     * default: one 2,500-node run at 10 did no better (docs/history/2026-12-07-header-string-cost.md).
     */
    nice: number;
    extraArgs: string[];
  };
  /**
   * The throttling experiment's noisy neighbour (noisy_neighbour.ts): a ServiceAccount on the secure port
   * with this many cluster-wide pod LISTs and ConfigMap writes in flight; zeros: none.
   */
  noisyNeighbour: { listsInFlight: number; writesInFlight: number };
  /** A chaos scenario (src/lab/chaos) run during the load: `kscale up --chaos [name]`; undefined: none. */
  chaos?: string;
  /** The quiet time before each chaos fault is drawn from [chaosGapMs, 2 × chaosGapMs): `--chaos-gap`, default 10 s. */
  chaosGapMs?: number;
  /**
   * `kscale load`: an existing cluster the lab loads and measures, as ClusterLoader2 does; nothing is started and
   * the lab's namespaces are deleted at the end. Undefined: `kscale up`'s own cluster.
   */
  existingCluster?: { kubeconfig: string };
  /** The HA control plane (ha.ts): etcd members, API servers behind HAProxy, leader-elected schedulers and controller-managers; all 1 is the plain lab. */
  ha: { etcdMembers: number; apiservers: number; schedulers: number; controllerManagers: number };
}

/**
 * Client QPS/burst the lab gives the controller-manager and scheduler.
 * Upstream's defaults (20/30 and 50/100) would cap pod creation near 20 pods/s,
 * so the lab raises them, as large clusters do, and the report says so.
 */
export const RAISED_LIMITS: ClientLimits = { qps: 500, burst: 1000 };

/**
 * Workers of the Deployment and ReplicaSet controllers: 10 each, twice upstream's 5, as large clusters raise them
 * (Gardener runs 50). A sync waits on its API calls (a ReplicaSet's slow-start batches of creates, then its status),
 * ~0.15–0.2 s each at 2,500 nodes on two cores, so 5 workers are busy all the time below 100 pods/s and their queues
 * grow: at 2,500 nodes they drained for 62–89 s after the lab's last object. With 10, 102.2 pods/s and 19 s
 * (docs/history/2026-12-07-young-generation-secure-get.md). With 50, pods were created at the offered rate and then
 * the server, at its limit, fell behind everything else (docs/history/2026-12-06-workload-workers.md).
 * `--controller-manager-workload-syncs 5` gives upstream's value.
 */
export const WORKLOAD_SYNCS = 10;

/** The defaults of `kscale up`, for a given scenario. */
export function defaultConfig(scenario: Scenario, reportDir: string): LabConfig {
  return {
    nodes: 100,
    podsPerNode: scenario.podsPerNode,
    // 5% above the 100 pods/s target: a rate counted until the last pod runs is a hair under what was offered.
    podRate: 105,
    scenario,
    mode: 'auto',
    reportDir,
    keepRunning: false,
    settleS: 5,
    scrapeIntervalMs: 5_000,
    phaseTimeoutMs: 0,
    seed: 1,
    server: {
      labEtcd: 'none',
      storageSync: 'full',
      watchCache: true,
      maxRequestsInflight: 400,
      maxMutatingRequestsInflight: 200,
      insecure: false,
      extraArgs: [],
    },
    controllerManager: {
      ...RAISED_LIMITS,
      workloadSyncs: WORKLOAD_SYNCS,
      nodeMonitorPeriod: '5s',
      nodeMonitorGracePeriod: '50s',
      extraArgs: [],
    },
    scheduler: { ...RAISED_LIMITS, extraArgs: [] },
    fleet: {
      qps: 50,
      burst: 100,
      processes: 0,
      heartbeat: 'lease',
      nodeStatusUpdateFrequency: '10s',
      podWatch: 'per-node',
      nodeJoin: 'csr',
      podStartupMs: 1000,
      joinRate: 50,
      maxConnections: 64,
      proxyMode: 'off',
      proxyWatch: 'endpointslices',
      identity: 'admin',
      nice: 0,
      extraArgs: [],
    },
    noisyNeighbour: { listsInFlight: 0, writesInFlight: 0 },
    ha: { etcdMembers: 1, apiservers: 1, schedulers: 1, controllerManagers: 1 },
  };
}
