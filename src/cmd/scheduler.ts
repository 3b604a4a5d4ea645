/**
 * `kscale scheduler`: kube-scheduler against any API server. Flags keep
 * upstream's names (--config, --kubeconfig, --kube-api-qps, --kube-api-burst,
 * --leader-elect); flags given on the command line override the file.
 */
import { Command, Option } from 'commander';
import {
  addClientFlags,
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

/** Adds the `scheduler` subcommand. */
export function schedulerCommand(): Command {
  const cmd = new Command('scheduler')
    .description('run the scheduler (kube-scheduler) against an API server')
    .addOption(new Option('--config <file>', 'a KubeSchedulerConfiguration file'))
    .addOption(
      new Option('--leader-elect [bool]', 'elect a leader on a Lease before scheduling').argParser(booleanFlag),
    )
    .addOption(
      new Option('--port <n>', 'port for /healthz and /metrics on 127.0.0.1 (0: pick one)')
        .argParser(intFlag)
        .default(10259),
    )
    .addOption(
      new Option('--max-in-flight-bindings <n>', 'pods/binding calls in flight at once')
        .argParser(nonNegativeIntFlag)
        .default(64),
    )
    .option('-v, --verbose', 'verbose logs');
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
    const server = newSchedulerServer(flags, config, clock, log, leaderElect, {
      port: o.port as number,
      maxInFlightBindings: o.maxInFlightBindings as number,
      onLeadershipLost: () => {
        process.stderr.write('kscale scheduler: leaderelection lost\n');
        process.exit(1);
      },
    });
    // Like upstream, leader_election_master_status sits beside the scheduler's own metrics.
    setLeaderElectionMetricsProvider(prometheusLeaderElectionMetrics(server.scheduler.metrics.registry));
    const keepAlive = setInterval(() => undefined, 1 << 30);
    let stopping = false;
    const shutdown = (): void => {
      if (stopping) return;
      stopping = true;
      clearInterval(keepAlive);
      void server.stop().then(
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
