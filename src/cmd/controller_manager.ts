/**
 * `kscale controller-manager`: the controllers of kube-controller-manager
 * (node lifecycle, taint eviction, replicaset, deployment, garbage collector,
 * pod GC) in one
 * process, speaking only the Kubernetes API. Flags keep upstream's names and
 * defaults.
 */
import { Command, Option } from 'commander';
import {
  addClientFlags,
  durationFlag,
  electionSettings,
  EventBroadcaster,
  leaderElectionFlags,
  LeaderElector,
  withLeaderElectionFlags,
  nonNegativeNumberFlag,
  restConfigFromFlags,
  SharedInformerFactory,
  stripManagedFields,
  type ClientFlags,
} from '../client/index.js';
import { readFileSync } from 'node:fs';
import { booleanFlag, intFlag, type RestConfig } from '../client/index.js';
import { RealClock } from '../clock/index.js';
import {
  type ControllerManagerConfiguration,
  defaultControllerManagerConfiguration,
  newControllerDescriptors,
  type RunningControllers,
  SAControllerClientBuilder,
  SimpleControllerClientBuilder,
  startControllers,
} from '../controller/index.js';
import { componentMetrics, startComponentEndpoints, withComponentEndpointFlags } from './component_endpoints.js';
import { logger } from './log.js';
import { startEmbeddedScheduler, withSchedulerFlags } from './scheduler.js';

/** Adds the `controller-manager` subcommand. */
export function controllerManagerCommand(): Command {
  const cmd = new Command('controller-manager')
    .description(
      'run the controllers (node lifecycle, taint eviction, replicaset, deployment, job, endpointslice, endpoints, garbage collector, pod GC, csrapproving, csrsigning, csrcleaner, root-ca-cert-publisher, serviceaccount; tokencleaner on request) against an API server',
    )
    .addOption(
      new Option(
        '--controllers <list>',
        'controllers to enable: "*" for all on by default, "name" to enable, "-name" to disable',
      ).default('*'),
    )
    .addOption(
      new Option('--node-monitor-period <duration>', 'how often node health is checked')
        .argParser(durationFlag)
        .default(5_000, '5s'),
    )
    .addOption(
      new Option('--node-monitor-grace-period <duration>', 'how long a node may be silent before it is marked Unknown')
        .argParser(durationFlag)
        .default(50_000, '50s'),
    )
    .addOption(
      new Option(
        '--node-startup-grace-period <duration>',
        'how long a starting node may be silent before it is marked Unknown',
      )
        .argParser(durationFlag)
        .default(60_000, '1m0s'),
    )
    .addOption(
      new Option('--node-eviction-rate <rate>', 'nodes per second that get NoExecute taints in a healthy zone')
        .argParser(nonNegativeNumberFlag)
        .default(0.1),
    )
    .addOption(
      new Option(
        '--secondary-node-eviction-rate <rate>',
        'nodes per second tainted in a partially disrupted zone larger than --large-cluster-size-threshold',
      )
        .argParser(nonNegativeNumberFlag)
        .default(0.01),
    )
    .addOption(
      new Option(
        '--unhealthy-zone-threshold <fraction>',
        'fraction of not-Ready nodes (at least 3) that makes a zone partially disrupted',
      )
        .argParser(nonNegativeNumberFlag)
        .default(0.55),
    )
    .addOption(
      new Option(
        '--large-cluster-size-threshold <n>',
        'zones with more nodes keep the secondary rate when disrupted; smaller ones stop',
      )
        .argParser(nonNegativeNumberFlag)
        .default(50),
    )
    .addOption(
      new Option('--concurrent-replicaset-syncs <n>', 'replica sets synced at once')
        .argParser(nonNegativeNumberFlag)
        .default(5),
    )
    .addOption(
      new Option('--concurrent-deployment-syncs <n>', 'deployments synced at once')
        .argParser(nonNegativeNumberFlag)
        .default(5),
    )
    .addOption(
      new Option('--concurrent-gc-syncs <n>', 'garbage collector workers (each of the delete and orphan queues)')
        .argParser(nonNegativeNumberFlag)
        .default(20),
    )
    .addOption(
      new Option(
        '--enable-garbage-collector [bool]',
        'enable the garbage collector (cascading deletion by ownerReferences)',
      )
        .argParser(booleanFlag)
        .default(true),
    )
    .addOption(
      new Option(
        '--terminated-pod-gc-threshold <n>',
        'terminated pods kept before the pod garbage collector deletes the oldest (<= 0 disables)',
      )
        .argParser(intFlag)
        .default(12500),
    )
    .addOption(
      new Option('--concurrent-service-endpoint-syncs <n>', 'Services the EndpointSlice controller syncs at once')
        .argParser(nonNegativeNumberFlag)
        .default(5),
    )
    .addOption(
      new Option('--max-endpoints-per-slice <n>', 'endpoints per EndpointSlice (at most 1000)')
        .argParser(nonNegativeNumberFlag)
        .default(100),
    )
    .addOption(
      new Option(
        '--endpointslice-updates-batch-period <duration>',
        'how long pod changes wait to be batched into one EndpointSlice sync',
      )
        .argParser(durationFlag)
        .default(0, '0s'),
    )
    .addOption(
      new Option('--concurrent-endpoint-syncs <n>', 'Services the Endpoints controller syncs at once')
        .argParser(nonNegativeNumberFlag)
        .default(5),
    )
    .addOption(
      new Option('--concurrent-job-syncs <n>', 'Jobs synced at once').argParser(nonNegativeNumberFlag).default(5),
    )
    .addOption(
      new Option('--concurrent-daemonset-syncs <n>', 'DaemonSets synced at once')
        .argParser(nonNegativeNumberFlag)
        .default(2),
    )
    .addOption(
      new Option('--concurrent-statefulset-syncs <n>', 'StatefulSets synced at once')
        .argParser(nonNegativeNumberFlag)
        .default(5),
    )
    .addOption(
      new Option(
        '--job-pod-failure-backoff <duration>',
        'kscale only: first delay before a failed Job pod is replaced, doubling per consecutive failure up to 10m (upstream: fixed 10s)',
      )
        .argParser(durationFlag)
        .default(10_000, '10s'),
    )
    .addOption(
      new Option(
        '--endpoint-updates-batch-period <duration>',
        'how long pod changes wait to be batched into one Endpoints sync',
      )
        .argParser(durationFlag)
        .default(0, '0s'),
    )
    .option(
      '--cluster-signing-cert-file <file>',
      'PEM CA certificate the csrsigning controller issues client certificates with',
    )
    .option('--cluster-signing-key-file <file>', 'PEM private key of --cluster-signing-cert-file')
    .addOption(
      new Option('--cluster-signing-duration <duration>', 'the longest certificate the csrsigning controller issues')
        .argParser(durationFlag)
        .default(8760 * 3_600_000, '8760h0m0s'),
    )
    .option(
      '--root-ca-file <file>',
      "CA bundle published as every namespace's kube-root-ca.crt (default: the kubeconfig's certificate authority)",
    )
    .option(
      '--use-service-account-credentials [bool]',
      'each controller talks as its own ServiceAccount kube-system/<name> (TokenRequest), authorized by its system:controller:<name> role',
      (v: string) => v !== 'false',
      false,
    )
    .option('-v, --verbose', 'verbose logs');
  withComponentEndpointFlags(cmd, 10257);
  withLeaderElectionFlags(cmd, 'kube-controller-manager');
  return addClientFlags(withSchedulerFlags(cmd), { qps: 20, burst: 30 }).action(
    async (o: Record<string, unknown>, c: Command) => {
      const log = logger(o.verbose === true);
      const clock = new RealClock();
      // Queues created from here on report to this registry, as upstream's controllers report to the legacy registry.
      const metrics = componentMetrics(clock);
      let started = false;
      // Like upstream: every controller gets its own client (its own QPS/burst bucket) from the builder, and the
      // shared informers list and watch through one more, "shared-informers".
      const restConfig = restConfigFromFlags(o as unknown as ClientFlags);
      const managerConfig = { ...restConfig, userAgent: 'kscale-controller-manager' };
      const simple = new SimpleControllerClientBuilder(managerConfig, { clock });
      const endpoints = await startComponentEndpoints(
        'controller-manager',
        o,
        c.getOptionValueSource('securePort') === 'cli',
        metrics.registry,
        () => started,
        // The secure port's TokenReviews and SubjectAccessReviews, as the manager itself.
        simple.client('delegated-auth'),
      ).catch((err: unknown) => {
        process.stderr.write(`kscale controller-manager: --secure-port: ${(err as Error).message}\n`);
        process.exit(1);
      });
      // The shared informers list and watch as the manager itself, as upstream's do.
      const client = simple.client('shared-informers');
      const clientBuilder =
        o.useServiceAccountCredentials === true
          ? new SAControllerClientBuilder(managerConfig, client, { clock, logger: log })
          : simple;
      const config = defaultControllerManagerConfiguration();
      config.nodeLifecycle = {
        nodeMonitorPeriodMs: o.nodeMonitorPeriod as number,
        nodeMonitorGracePeriodMs: o.nodeMonitorGracePeriod as number,
        nodeStartupGracePeriodMs: o.nodeStartupGracePeriod as number,
        nodeEvictionRate: o.nodeEvictionRate as number,
        secondaryNodeEvictionRate: o.secondaryNodeEvictionRate as number,
        unhealthyZoneThreshold: o.unhealthyZoneThreshold as number,
        largeClusterSizeThreshold: o.largeClusterSizeThreshold as number,
      };
      config.replicaSet = {
        ...config.replicaSet,
        concurrentRSSyncs: Math.max(1, o.concurrentReplicasetSyncs as number),
      };
      config.deployment = { concurrentDeploymentSyncs: Math.max(1, o.concurrentDeploymentSyncs as number) };
      config.daemonSet = {
        ...config.daemonSet,
        concurrentDaemonSetSyncs: Math.max(1, o.concurrentDaemonsetSyncs as number),
      };
      config.statefulSet = { concurrentStatefulSetSyncs: Math.max(1, o.concurrentStatefulsetSyncs as number) };
      config.garbageCollector = {
        concurrentGCSyncs: Math.max(1, o.concurrentGcSyncs as number),
        enableGarbageCollector: o.enableGarbageCollector !== false,
      };
      config.podGC = { ...config.podGC, terminatedPodGCThreshold: o.terminatedPodGcThreshold as number };
      config.endpointSlice = {
        concurrentServiceEndpointSyncs: Math.max(1, o.concurrentServiceEndpointSyncs as number),
        maxEndpointsPerSlice: Math.min(1000, Math.max(1, o.maxEndpointsPerSlice as number)),
        endpointUpdatesBatchPeriodMs: o.endpointsliceUpdatesBatchPeriod as number,
      };
      config.job = {
        ...config.job,
        concurrentJobSyncs: Math.max(1, o.concurrentJobSyncs as number),
        podFailureBackoffMs: o.jobPodFailureBackoff as number,
      };
      config.endpoints = {
        concurrentEndpointSyncs: Math.max(1, o.concurrentEndpointSyncs as number),
        endpointUpdatesBatchPeriodMs: o.endpointUpdatesBatchPeriod as number,
      };
      try {
        Object.assign(config, certificateFlags(o, restConfig));
      } catch (err) {
        process.stderr.write(`kscale controller-manager: ${(err as Error).message}\n`);
        process.exit(1);
      }
      const enabled = (o.controllers as string)
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
      // Like upstream, --enable-garbage-collector=false keeps the collector off whatever --controllers says.
      if (!config.garbageCollector.enableGarbageCollector) enabled.unshift('-garbage-collector-controller');
      const abort = new AbortController();
      const electionAbort = new AbortController();
      let stopping = false;
      // Like kube-controller-manager's CreateControllerContext: cached objects drop managedFields (memory, copies, status writes).
      const informers = new SharedInformerFactory(client, { clock, logger: log, transform: stripManagedFields });
      const events = new EventBroadcaster(client, { clock, logger: log });
      // RealClock timers are unref'd; this keeps the process up between watch reconnects until shutdown.
      const keepAlive = setInterval(() => undefined, 1 << 30);
      let controllers: RunningControllers | undefined;
      let leading: Promise<void> = Promise.resolve();
      let electing: Promise<void> = Promise.resolve();
      // Starts the controllers, once this process leads (or at once without --leader-elect).
      const lead = async (): Promise<void> => {
        try {
          controllers = await startControllers(
            { client, informers, clock, logger: log, config, events, clientBuilder },
            newControllerDescriptors(),
            enabled,
            abort.signal,
          );
        } catch (err) {
          if (stopping) return;
          process.stderr.write(`kscale controller-manager: ${(err as Error).message}\n`);
          process.exit(1);
        }
        started = true;
        process.stdout.write(
          `kscale controller-manager started: ${controllers.controllers.map((x) => x.name).join(', ')}\n`,
        );
        // --run-scheduler: the scheduler runs beside the controllers (it exits with the process).
        await startEmbeddedScheduler(o, log, clock).catch((err: unknown) => {
          process.stderr.write(`kscale controller-manager: scheduler: ${(err as Error).message}\n`);
          process.exit(1);
        });
      };
      const election = leaderElectionFlags(o);
      if (!election.leaderElect) {
        metrics.leaderElection.on(election.resourceName);
        leading = lead();
      } else {
        const elector = new LeaderElector({
          client,
          clock,
          logger: log,
          ...electionSettings(election),
          onStartedLeading: () => {
            leading = lead();
          },
          onStoppedLeading: () => {
            if (stopping) return;
            // Like upstream: a controller-manager that lost its Lease exits rather than act beside the new leader.
            process.stderr.write('kscale controller-manager: leaderelection lost\n');
            process.exit(1);
          },
        });
        process.stdout.write(`kscale controller-manager: campaigning for ${election.resourceName}\n`);
        electing = elector.run(electionAbort.signal);
      }
      // The controllers stop before the Lease is released, so a standby never acts beside them.
      const shutdown = (): void => {
        if (stopping) return;
        stopping = true;
        abort.abort();
        clearInterval(keepAlive);
        void (async () => {
          await leading;
          await controllers?.stop();
          electionAbort.abort();
          await electing;
          await events.shutdown();
          await endpoints?.close();
          process.exit(0);
        })();
      };
      process.once('SIGINT', shutdown);
      process.once('SIGTERM', shutdown);
    },
  );
}

/** The csrsigning CA and the root CA to publish, read from their flags (the root CA defaults to the kubeconfig's). */
function certificateFlags(
  o: Record<string, unknown>,
  rest: RestConfig,
): Pick<ControllerManagerConfiguration, 'csrSigning' | 'rootCA'> {
  const certFile = o.clusterSigningCertFile as string | undefined;
  const keyFile = o.clusterSigningKeyFile as string | undefined;
  if ((certFile === undefined) !== (keyFile === undefined))
    throw new Error('--cluster-signing-cert-file and --cluster-signing-key-file go together');
  const read = (flag: string, file: string): string => {
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`${flag}: ${(err as Error).message}`, { cause: err });
    }
  };
  const csrSigning = {
    durationMs: o.clusterSigningDuration as number,
    ...(certFile === undefined || keyFile === undefined
      ? {}
      : {
          certPEM: read('--cluster-signing-cert-file', certFile),
          keyPEM: read('--cluster-signing-key-file', keyFile),
        }),
  };
  const rootCAFile = o.rootCaFile as string | undefined;
  const rootCA = rootCAFile !== undefined ? read('--root-ca-file', rootCAFile) : rest.ca?.toString('utf8');
  return { csrSigning, ...(rootCA === undefined ? {} : { rootCA }) };
}
