/**
 * The --secure-port / --bind-address flags of the controller-manager and the
 * scheduler (upstream's names and ports: 10257, 10259) and the process-wide
 * metrics registry they serve: the process family, the workqueue family and
 * leader_election_master_status.
 */
import { Option, type Command } from 'commander';
import { collectDefaultMetrics, Registry } from 'prom-client';
import {
  prometheusLeaderElectionMetrics,
  prometheusWorkqueueMetrics,
  serveComponentEndpoints,
  setLeaderElectionMetricsProvider,
  setWorkqueueMetricsProvider,
  type ComponentEndpoints,
  type LeaderElectionMetricsProvider,
} from '../client/index.js';
import type { Clock } from '../clock/index.js';

/** Adds --secure-port and --bind-address with upstream's default port. */
export function withComponentEndpointFlags(cmd: Command, defaultPort: number): Command {
  return cmd
    .addOption(
      new Option('--secure-port <n>', 'port of /healthz, /livez, /readyz and /metrics (0: pick a free one; -1: none)')
        .argParser(Number)
        .default(defaultPort),
    )
    .addOption(new Option('--bind-address <ip>', 'address the endpoints listen on').default('127.0.0.1'));
}

/** The process's metrics registry, with the workqueue and leader election providers installed. */
export function componentMetrics(clock: Clock): { registry: Registry; leaderElection: LeaderElectionMetricsProvider } {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  setWorkqueueMetricsProvider(prometheusWorkqueueMetrics(registry, () => clock.now()));
  const leaderElection = prometheusLeaderElectionMetrics(registry);
  setLeaderElectionMetricsProvider(leaderElection);
  return { registry, leaderElection };
}

/**
 * Serves the endpoints as the flags say. A busy default port is logged and
 * skipped (many kscale processes share a machine); a port given explicitly
 * that cannot be bound is an error.
 */
export async function startComponentEndpoints(
  component: string,
  o: Record<string, unknown>,
  explicit: boolean,
  registry: Registry,
  ready: () => boolean,
): Promise<ComponentEndpoints | undefined> {
  const port = o.securePort as number;
  if (!Number.isInteger(port) || port < 0) return undefined;
  try {
    const ep = await serveComponentEndpoints({ bindAddress: `${o.bindAddress as string}:${port}`, registry, ready });
    process.stdout.write(`kscale ${component} serving /metrics and /healthz on ${ep.url}\n`);
    return ep;
  } catch (err) {
    if (explicit || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    process.stderr.write(`kscale ${component}: port ${port} is in use; not serving /metrics and /healthz\n`);
    return undefined;
  }
}
