/**
 * `kscale scheduler`: kube-scheduler against any API server. Flags keep
 * upstream's names (--config, --kubeconfig, --kube-api-qps, --kube-api-burst,
 * --leader-elect, --secure-port 10259); flags given on the command line
 * override the file.
 */
import { Command, Option } from 'commander';
import {
  addClientFlags,
  RESTClient,
  booleanFlag,
  intFlag,
  nonNegativeIntFlag,
  prometheusLeaderElectionMetrics,
  restConfigFromFlags,
  setLeaderElectionMetricsProvider,
  type ClientFlags,
  type ClientLogger,
} from '../client/index.js';
import { RealClock, type Clock } from '../clock/index.js';
import {
  loadSchedulerConfiguration,
  SchedulerServer,
  type KubeSchedulerConfiguration,
  type SchedulerServerOptions,
} from '../scheduler/index.js';
import { logger } from './log.js';
import { messageOf, UsageError } from './exit.js';
import { startComponentEndpoints, withComponentEndpointFlags } from './component_endpoints.js';

/** Adds the `scheduler` subcommand. */
export function schedulerCommand(): Command {
  const cmd = new Command('scheduler')
    .description('run the scheduler (kube-scheduler) against an API server')
    .addOption(new Option('--config <file>', 'a KubeSchedulerConfiguration file'))
    .addOption(
      new Option('--leader-elect [bool]', 'elect a leader on a Lease before scheduling').argParser(booleanFlag),
    )
    .addOption(
      new Option(
        '--port <n>',
        'deprecated (upstream removed its insecure port): plain HTTP /healthz and /metrics on 127.0.0.1 with no authentication; use --secure-port',
      ).argParser(intFlag),
    )
    .addOption(
      new Option('--max-in-flight-bindings <n>', 'pods/binding calls in flight at once')
        .argParser(nonNegativeIntFlag)
        .default(64),
    )
    .option('-v, --verbose', 'verbose logs');
  withComponentEndpointFlags(cmd, 10259);
  // Upstream's clientConnection defaults are 50/100; benchmarks raise them and record what they used.
  return addClientFlags(cmd, { qps: 50, burst: 100 }).action(async (o: Record<string, unknown>, c: Command) => {
    const log = logger(o.verbose === true);
    const clock = new RealClock();
    let config: KubeSchedulerConfiguration = {};
    try {
      if (typeof o.config === 'string') config = loadSchedulerConfiguration(o.config);
    } catch (err) {
      throw new UsageError(`--config: ${messageOf(err)}`, { cause: err });
    }
    const fromCli = (name: string): boolean => c.getOptionValueSource(name) === 'cli';
    const flags = o as unknown as ClientFlags;
    if (!fromCli('kubeApiQps') && config.clientConnection?.qps !== undefined)
      flags.kubeApiQps = config.clientConnection.qps;
    if (!fromCli('kubeApiBurst') && config.clientConnection?.burst !== undefined)
      flags.kubeApiBurst = config.clientConnection.burst;
    if (flags.kubeconfig === undefined && config.clientConnection?.kubeconfig)
      flags.kubeconfig = config.clientConnection.kubeconfig;
    const leaderElect =
      o.leaderElect !== undefined ? (o.leaderElect as boolean) : (config.leaderElection?.leaderElect ?? true);
    // A missing kubeconfig throws a usage error (exit 2), anything else a runtime failure (exit 1).
    if (o.port !== undefined) process.stderr.write('kscale scheduler: --port is deprecated: use --secure-port\n');
    const server = newSchedulerServer(flags, config, clock, log, leaderElect, {
      ...(o.port !== undefined ? { port: o.port as number } : {}),
      maxInFlightBindings: o.maxInFlightBindings as number,
      onLeadershipLost: () => {
        process.stderr.write('kscale scheduler: leaderelection lost\n');
        process.exit(1);
      },
    });
    // Like upstream, leader_election_master_status sits beside the scheduler's own metrics.
    setLeaderElectionMetricsProvider(prometheusLeaderElectionMetrics(server.scheduler.metrics.registry));
    // The secure port before scheduling starts, so a standby is observable while it waits for the lease. Its
    // TokenReviews and SubjectAccessReviews go through a client of their own, as upstream's
    // --authentication-kubeconfig defaults to the component's kubeconfig.
    const delegated = new RESTClient(
      { ...restConfigFromFlags(flags), userAgent: 'kscale-scheduler/delegated-auth' },
      { clock },
    );
    const endpoints = await startComponentEndpoints(
      'scheduler',
      o,
      c.getOptionValueSource('securePort') === 'cli',
      server.scheduler.metrics.registry,
      () => server.synced,
      delegated,
    ).catch((err: unknown) => {
      process.stderr.write(`kscale scheduler: --secure-port: ${messageOf(err)}\n`);
      process.exit(1);
    });
    const keepAlive = setInterval(() => undefined, 1 << 30);
    let stopping = false;
    const shutdown = (): void => {
      if (stopping) return;
      stopping = true;
      clearInterval(keepAlive);
      const stopped = async (): Promise<void> => {
        await server.stop();
        await endpoints?.close();
        delegated.close();
      };
      void stopped().then(
        () => process.exit(0),
        () => process.exit(0),
      );
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
    try {
      await server.start();
    } catch (err) {
      throw new UsageError(`--config: ${messageOf(err)}`, { cause: err });
    }
    if (server.url !== '') process.stdout.write(`kscale scheduler listening on ${server.url}\n`);
  });
}

/** Adds the flags that run the scheduler inside `kscale controller-manager`. */
export function withSchedulerFlags(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--run-scheduler [bool]', 'also run the scheduler in this process')
        .argParser(booleanFlag)
        .default(false),
    )
    .addOption(
      new Option(
        '--scheduler-config <file>',
        'KubeSchedulerConfiguration for the embedded scheduler (its clientConnection sets QPS/burst, default 50/100)',
      ),
    );
}

/** A SchedulerServer from parsed flags that prints the started line both ways of running it share. */
function newSchedulerServer(
  flags: ClientFlags,
  config: KubeSchedulerConfiguration,
  clock: Clock,
  log: ClientLogger,
  leaderElect: boolean,
  more: Partial<SchedulerServerOptions> = {},
): SchedulerServer {
  return new SchedulerServer({
    restConfig: restConfigFromFlags(flags),
    config,
    clock,
    logger: log,
    leaderElect,
    onStarted: () =>
      process.stdout.write(
        `kscale scheduler started (qps ${flags.kubeApiQps}, burst ${flags.kubeApiBurst}, leader-elect ${leaderElect})\n`,
      ),
    ...more,
  });
}

/** Starts the embedded scheduler of `kscale controller-manager --run-scheduler`; it prints the same started line. */
export async function startEmbeddedScheduler(
  o: Record<string, unknown>,
  log: ClientLogger,
  clock: Clock,
): Promise<SchedulerServer | undefined> {
  if (o.runScheduler !== true) return undefined;
  const config = typeof o.schedulerConfig === 'string' ? loadSchedulerConfiguration(o.schedulerConfig) : {};
  const flags = {
    ...(o as unknown as ClientFlags),
    kubeApiQps: config.clientConnection?.qps ?? 50,
    kubeApiBurst: config.clientConnection?.burst ?? 100,
  };
  const leaderElect = config.leaderElection?.leaderElect ?? false;
  const server = newSchedulerServer(flags, config, clock, log, leaderElect);
  await server.start();
  return server;
}
