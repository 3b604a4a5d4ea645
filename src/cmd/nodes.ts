/**
 * `kscale nodes`: a fleet of hollow kubelets in one process, like kubemark or
 * KWOK, against any Kubernetes API server; `kscale nodes kill|revive|status`
 * drive a running fleet through the control endpoint it publishes beside its
 * kubeconfig. Kubelet flags keep upstream's names and defaults.
 */
import { Command, Option } from 'commander';
import { parseDuration, quantityValue } from '../api/index.js';
import {
  addClientFlags,
  deprecatedAlias,
  intFlag,
  kubeconfigPaths,
  loadKubeconfig,
  nonNegativeIntFlag,
  nonNegativeNumberFlag,
  restConfigFromFlags,
  RESTClient,
  type ClientFlags,
} from '../client/index.js';
import { RealClock } from '../clock/index.js';
import { HollowProxies, type HollowProxyWatch, type ProxyMode } from '../proxy/index.js';
import {
  DEFAULT_SETTINGS,
  Fleet,
  callFleet,
  findFleets,
  parseLabels,
  parseLatency,
  parseTaints,
  serveControl,
  type FleetEndpoint,
  type HeartbeatMode,
  type KubeletSettings,
  type PodReferencesMode,
  type PodWatchMode,
} from '../kubelet/index.js';
import { logger } from './log.js';
import { FLEET_PARENT_ENV, runFleetProcesses } from './nodes_processes.js';
import { startComponentEndpoints, withComponentEndpointFlags } from './component_endpoints.js';

/** The fleet's secure port by default. */
export const FLEET_SECURE_PORT = 10255;

/** The kubeconfig file a fleet publishes its endpoint beside. */
function kubeconfigFile(o: { kubeconfig?: string }): string {
  return kubeconfigPaths(o.kubeconfig !== undefined ? { path: o.kubeconfig } : {})[0]!;
}

/** Adds the `nodes` subcommand and its kill, revive and status subcommands. */
export function nodesCommand(): Command {
  const cmd = new Command('nodes')
    .description(
      'run a fleet of hollow kubelets (registration, leases, node status, pods) in one process, or several (--processes)',
    )
    .option('--count <n>', 'hollow nodes to run', nonNegativeIntFlag)
    .option('--name-prefix <prefix>', 'node name prefix; node i is <prefix><i>', 'hollow-node-')
    .option(
      '--first-index <i>',
      'index of the first node (several fleets sharing one name prefix)',
      nonNegativeIntFlag,
      0,
    )
    .option(
      '--processes <n>',
      'fleet processes to split the nodes over, each a contiguous slice of the node range',
      nonNegativeIntFlag,
      1,
    )
    .option('--join-rate <n>', 'nodes registering per second (0: all at once)', nonNegativeNumberFlag, 50)
    .option(
      '--zones <n>',
      'spread nodes over this many topology.kubernetes.io/zone values',
      nonNegativeIntFlag,
      DEFAULT_SETTINGS.zones,
    )
    .option('--gpus-per-node <n>', 'nvidia.com/gpu capacity of each node', nonNegativeIntFlag, 0)
    .option('--cpu <cores>', 'cpu capacity of each node', nonNegativeIntFlag, DEFAULT_SETTINGS.cpuCores)
    .option('--memory <quantity>', 'memory capacity of each node', '32Gi')
    .option('--max-pods <n>', 'pods capacity, like the kubelet flag', nonNegativeIntFlag, DEFAULT_SETTINGS.maxPods)
    .option('--instance-type <type>', 'node.kubernetes.io/instance-type label', DEFAULT_SETTINGS.instanceType)
    .option('--images <n>', 'images listed in each node status', nonNegativeIntFlag, DEFAULT_SETTINGS.images)
    .option('--node-labels <labels>', 'extra node labels, key=value,…', '')
    .option(
      '--register-with-taints <taints>',
      'taints to register with, key[=value]:Effect,… (e.g. kscale.io/hollow=true:NoSchedule)',
      '',
    )
    .option(
      '--node-status-update-frequency <duration>',
      'how often node status is computed (patched when changed)',
      '10s',
    )
    .option('--node-status-report-frequency <duration>', 'how often an unchanged node status is still patched', '5m0s')
    .option(
      '--node-lease-duration-seconds <n>',
      'lease duration; renewed every quarter of it',
      nonNegativeIntFlag,
      DEFAULT_SETTINGS.nodeLeaseDurationSeconds,
    )
    .addOption(
      new Option(
        '--heartbeat <mode>',
        'lease: node leases (upstream); status: full status every period, no lease (pre-1.14 kubelets)',
      )
        .choices(['lease', 'status'])
        .default('lease'),
    )
    .addOption(
      new Option(
        '--pod-watch <mode>',
        'per-node: one pod watch per kubelet (real); shared: one watch for the fleet (cheaper)',
      )
        .choices(['per-node', 'shared'])
        .default('per-node'),
    )
    .option('--pod-startup-latency <p50,p99>', 'simulated pod start-up latency in ms (log-normal)', '1000,3000')
    .option('--job-pod-runtime <duration>', 'how long a Job-owned pod runs before it succeeds', '30s')
    .option(
      '--port <n>',
      "the kubelet API port (container logs) on each node's loopback InternalIP, like the kubelet flag; 0: ephemeral, -1: off",
      intFlag,
      10250,
    )
    .option(
      '--kubelet-max-connections <n>',
      'keep-alive sockets shared by all kubelets for short requests, split evenly between node heartbeats and pods',
      nonNegativeIntFlag,
      64,
    )
    .option(
      '--bootstrap-kubeconfig <file>',
      "join like kubeadm nodes: each node sends a CSR with this kubeconfig's bootstrap token and then talks with its own client certificate over its own connection",
    )
    .option(
      '--cert-dir <dir>',
      "with --bootstrap-kubeconfig, write each node's <dir>/<node>/kubelet-client-current.pem (default: kept in memory)",
    )
    .option(
      '--bootstrap-concurrency <n>',
      'with --bootstrap-kubeconfig, nodes bootstrapping their certificate at once (no thundering herd of CSRs)',
      nonNegativeIntFlag,
      32,
    )
    .option(
      '--bootstrap-csr-timeout <duration>',
      "with --bootstrap-kubeconfig, how long a node's CSR may stay Pending before it sends a new one (the kubelet waits 1h)",
      '1h',
    )
    .option(
      '--bootstrap-csr-attempts <n>',
      'with --bootstrap-kubeconfig, CSRs a node sends while they stay Pending before it gives up and is left unjoined',
      nonNegativeIntFlag,
      3,
    )
    .addOption(
      new Option(
        '--pod-references <mode>',
        "watch: kubelets GET+watch each Secret and ConfigMap their pods reference and request each pod's ServiceAccount token, as real kubelets (default with --bootstrap-kubeconfig); none: they do not (default otherwise)",
      ).choices(['watch', 'none']),
    )
    .option('--stats-period <duration>', 'print fleet counters as JSON on stdout this often (0: never)', '0')
    .option('--hollow-proxy', "also run each node's kube-proxy watches of Services and EndpointSlices", false)
    .option(
      '--hollow-proxy-compute-fraction <f>',
      'fraction of hollow proxies that also recompute their rules on every change',
      nonNegativeNumberFlag,
      0.01,
    )
    .addOption(
      new Option('--proxy-mode <mode>', "which rules those hollow proxies compute, as kube-proxy's --proxy-mode")
        .choices(['iptables', 'nftables', 'ipvs'])
        .default('iptables'),
    )
    .addOption(
      new Option(
        '--hollow-proxy-watch <resource>',
        'what hollow proxies watch besides Services: endpointslices (kube-proxy since 1.19) or endpoints (older)',
      )
        .choices(['endpointslices', 'endpoints'])
        .default('endpointslices'),
    )
    .option('-v, --verbose', 'verbose logs');
  // The fleet's own endpoints: kubelet metrics summed over its nodes (10255, the kubelet's retired read-only port,
  // which nothing else on a machine expects), HTTPS with delegated authentication and authorization.
  withComponentEndpointFlags(cmd, FLEET_SECURE_PORT);
  addClientFlags(cmd, { qps: 50, burst: 100 });
  deprecatedAlias(cmd, 'max-connections', 'kubelet-max-connections', nonNegativeIntFlag);
  cmd.action(async (o: Record<string, unknown>, c: Command) =>
    runFleet(o, c.getOptionValueSource('securePort') === 'cli'),
  );
  cmd.addCommand(
    controlCommand(
      'kill',
      'stop heartbeats, status and pod work of chosen nodes (they look dead to the control plane)',
    ),
  );
  cmd.addCommand(controlCommand('revive', 'bring killed nodes back'));
  cmd.addCommand(
    new Command('status')
      .description('print the counters of the fleets running beside the kubeconfig')
      .option('--kubeconfig <file>', 'the kubeconfig the fleets run with')
      .action(async (_o: unknown, c: Command) => {
        for (const f of fleetsOrExit(c.optsWithGlobals()))
          process.stdout.write(
            `${JSON.stringify({ pid: f.pid, ...(await callFleet<object>(f, 'GET', '/status')) })}\n`,
          );
      }),
  );
  return cmd;
}

function settingsFrom(o: Record<string, unknown>): KubeletSettings {
  const latency = parseLatency(o.podStartupLatency as string, parseDuration);
  return {
    ...DEFAULT_SETTINGS,
    nodeStatusUpdateFrequencyMs: parseDuration(o.nodeStatusUpdateFrequency as string),
    nodeStatusReportFrequencyMs: parseDuration(o.nodeStatusReportFrequency as string),
    nodeLeaseDurationSeconds: o.nodeLeaseDurationSeconds as number,
    heartbeat: o.heartbeat as HeartbeatMode,
    maxPods: o.maxPods as number,
    cpuCores: o.cpu as number,
    memoryBytes: quantityValue(o.memory as string),
    gpus: o.gpusPerNode as number,
    images: o.images as number,
    taints: parseTaints(o.registerWithTaints as string),
    labels: parseLabels(o.nodeLabels as string),
    zones: o.zones as number,
    instanceType: o.instanceType as string,
    podStartupP50Ms: latency.p50Ms,
    podStartupP99Ms: latency.p99Ms,
    jobPodRuntimeMs: parseDuration(o.jobPodRuntime as string),
  };
}

async function runFleet(o: Record<string, unknown>, explicitSecurePort: boolean): Promise<void> {
  if (o.count === undefined) {
    process.stderr.write('kscale nodes: --count is required\n');
    process.exit(2);
  }
  if ((o.processes as number) > 1 && (o.count as number) > 1)
    return runFleetProcesses({
      count: o.count as number,
      processes: o.processes as number,
      firstIndex: o.firstIndex as number,
      joinRate: o.joinRate as number,
      // Given explicitly, process i serves on --secure-port + i; by default each tries 10255 and one gets it.
      ...(explicitSecurePort ? { securePort: o.securePort as number } : {}),
    });
  const log = logger(o.verbose === true);
  const clock = new RealClock();
  const settings = settingsFrom(o);
  const bootstrapFile = o.bootstrapKubeconfig as string | undefined;
  if (bootstrapFile !== undefined && o.podWatch === 'shared') {
    process.stderr.write('kscale nodes: --pod-watch shared needs the shared credential; drop --bootstrap-kubeconfig\n');
    process.exit(2);
  }
  const config =
    bootstrapFile === undefined ? restConfigFromFlags(o as unknown as ClientFlags) : nodeConfig(o, bootstrapFile);
  const podReferences =
    (o.podReferences as PodReferencesMode | undefined) ?? (bootstrapFile !== undefined ? 'watch' : 'none');
  const fleet = new Fleet({
    config,
    count: o.count as number,
    namePrefix: o.namePrefix as string,
    firstIndex: o.firstIndex as number,
    joinRate: o.joinRate as number,
    settings,
    podWatch: o.podWatch as PodWatchMode,
    qps: o.kubeApiQps as number,
    burst: o.kubeApiBurst as number,
    maxConnections: Math.max(1, o.kubeletMaxConnections as number),
    clock,
    logger: log,
    ...((o.port as number) >= 0 ? { kubeletPort: o.port as number } : {}),
    ...(bootstrapFile !== undefined
      ? {
          join: {
            bootstrap: loadKubeconfig({ path: bootstrapFile }),
            concurrency: Math.max(1, o.bootstrapConcurrency as number),
            ...(o.certDir !== undefined ? { certDir: o.certDir as string } : {}),
            pendingTimeoutMs: parseDuration(o.bootstrapCsrTimeout as string),
            attempts: Math.max(1, o.bootstrapCsrAttempts as number),
          },
        }
      : {}),
    podReferences,
  });
  const control = await serveControl(fleet, kubeconfigFile(o), o.namePrefix as string, o.firstIndex as number);
  let started = false;
  // Its TokenReviews and SubjectAccessReviews go as the --kubeconfig credential (a node's may create them too).
  const delegated = new RESTClient(
    { ...restConfigFromFlags(o as unknown as ClientFlags), userAgent: 'kscale-nodes/delegated-auth' },
    { clock },
  );
  const endpoints = await startComponentEndpoints(
    'nodes',
    o,
    explicitSecurePort,
    fleet.metrics.registry,
    () => started,
    delegated,
  ).catch((err: unknown) => {
    process.stderr.write(`kscale nodes: --secure-port: ${(err as Error).message}\n`);
    process.exit(1);
  });
  // Hollow proxies keep the --kubeconfig credential (kube-proxy's identity is not the node's).
  const proxyConfig = bootstrapFile === undefined ? config : restConfigFromFlags(o as unknown as ClientFlags);
  const proxies = o.hollowProxy === true ? hollowProxies(o, proxyConfig, fleet, clock, log) : undefined;
  const statsMs = parseDuration(o.statsPeriod as string);
  const statsTimer =
    statsMs > 0
      ? setInterval(
          () =>
            process.stdout.write(
              `${JSON.stringify({ stats: fleet.stats(), ...(proxies ? { proxy: proxies.stats() } : {}) })}\n`,
            ),
          statsMs,
        )
      : undefined;
  let stopping = false;
  const shutdown = (): void => {
    if (stopping) return;
    stopping = true;
    if (statsTimer !== undefined) clearInterval(statsTimer);
    void Promise.all([fleet.stop(), control.close(), proxies?.stop(), endpoints?.close()]).then(() => {
      delegated.close();
      process.exit(0);
    });
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  // A fleet process of `kscale nodes --processes` stops with its supervisor, even one killed outright.
  const parent = process.env[FLEET_PARENT_ENV];
  if (parent !== undefined) setInterval(() => process.ppid !== Number(parent) && shutdown(), 1_000).unref();
  process.stdout.write(
    `kscale nodes: ${o.count as number} hollow nodes joining ${config.host} at ${o.joinRate as number}/s ` +
      `(heartbeat=${settings.heartbeat}, pod-watch=${o.podWatch as string}, join=${bootstrapFile !== undefined ? 'csr' : 'shared'}, pod-references=${podReferences}); control ${control.endpoint.url}, endpoint file ${control.endpoint.file}\n`,
  );
  const t0 = clock.now();
  proxies?.start();
  await fleet.start();
  started = true;
  if (!stopping) {
    const s = fleet.stats();
    process.stdout.write(
      `kscale nodes: ${s.registered} of ${s.count} nodes registered in ${((clock.now() - t0) / 1000).toFixed(1)}s\n`,
    );
  }
  // The control server keeps the process alive until a signal arrives.
}

/** The nodes' server and CA from the bootstrap kubeconfig, without its token: each node brings its own certificate. */
function nodeConfig(o: Record<string, unknown>, bootstrapFile: string): ReturnType<typeof restConfigFromFlags> {
  const { bearerToken: _token, cert: _cert, key: _key, ...server } = loadKubeconfig({ path: bootstrapFile });
  return { ...server, qps: o.kubeApiQps as number, burst: o.kubeApiBurst as number };
}

function fleetsOrExit(o: { kubeconfig?: string }): FleetEndpoint[] {
  const fleets = findFleets(kubeconfigFile(o));
  if (fleets.length === 0) {
    process.stderr.write(`kscale nodes: no running fleet found beside ${kubeconfigFile(o)}\n`);
    process.exit(1);
  }
  return fleets;
}

function controlCommand(verb: 'kill' | 'revive', description: string): Command {
  const c = new Command(verb)
    .description(description)
    .option('--kubeconfig <file>', 'the kubeconfig the fleet runs with')
    .option('--names <a,b>', 'node names');
  if (verb === 'kill')
    c.option('--fraction <f>', "a random fraction of each fleet's live nodes", nonNegativeNumberFlag);
  else c.option('--all', 'every killed node (the default without --names)');
  return c.action(async (_o: unknown, self: Command) => {
    const o = self.optsWithGlobals<{ kubeconfig?: string; names?: string; fraction?: number; all?: boolean }>();
    const names = o.names
      ?.split(',')
      .map((n) => n.trim())
      .filter((n) => n !== '');
    if (verb === 'kill' && names === undefined && o.fraction === undefined) {
      process.stderr.write('kscale nodes kill: give --fraction or --names\n');
      process.exit(2);
    }
    const body = names !== undefined ? { names } : verb === 'kill' ? { fraction: o.fraction! } : { all: true };
    const done: string[] = [];
    for (const f of fleetsOrExit(o))
      done.push(...(await callFleet<{ nodes: string[] }>(f, 'POST', `/${verb}`, body)).nodes);
    process.stdout.write(
      `${verb === 'kill' ? 'killed' : 'revived'} ${done.length} nodes${done.length > 0 ? `: ${done.join(',')}` : ''}\n`,
    );
  });
}

/** Hollow proxies for every node of the fleet (--hollow-proxy), with kube-proxy's client QPS (5/10) and sync periods. */
function hollowProxies(
  o: Record<string, unknown>,
  config: ReturnType<typeof restConfigFromFlags>,
  fleet: Fleet,
  clock: RealClock,
  log: ReturnType<typeof logger>,
): HollowProxies {
  const fraction = o.hollowProxyComputeFraction as number;
  if (fraction > 1) throw new Error('--hollow-proxy-compute-fraction must be between 0 and 1');
  return new HollowProxies({
    config,
    nodes: [...fleet.kubelets.keys()],
    computeFraction: fraction,
    mode: o.proxyMode as ProxyMode,
    watch: o.hollowProxyWatch as HollowProxyWatch,
    qps: 5,
    burst: 10,
    minSyncPeriodMs: 1_000,
    syncPeriodMs: 30_000,
    clock,
    logger: log,
  });
}
