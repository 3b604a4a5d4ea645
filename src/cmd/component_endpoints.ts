/**
 * The --secure-port / --bind-address flags of the controller-manager and the
 * scheduler (upstream's names and ports: 10257, 10259) and the process-wide
 * metrics registry they serve: the process family, the workqueue family and
 * leader_election_master_status.
 */
import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { collectDefaultMetrics, Registry } from 'prom-client';
import {
  prometheusLeaderElectionMetrics,
  prometheusWorkqueueMetrics,
  DelegatedAuth,
  intFlag,
  selfSignedServingCert,
  serveComponentEndpoints,
  type RESTClient,
  setLeaderElectionMetricsProvider,
  setWorkqueueMetricsProvider,
  type ComponentEndpoints,
  type LeaderElectionMetricsProvider,
} from '../client/index.js';
import type { Clock } from '../clock/index.js';

/** Adds --secure-port, --bind-address and the serving certificate flags, with upstream's default port. */
export function withComponentEndpointFlags(cmd: Command, defaultPort: number): Command {
  return cmd
    .option(
      '--tls-cert-file <file>',
      'serving certificate (PEM) of the secure port; default: a self-signed one made at start',
    )
    .option('--tls-private-key-file <file>', 'its private key (PEM)')
    .option(
      '--client-ca-file <file>',
      'CA whose client certificates authenticate callers of the secure port (the user is the CN, the groups the O)',
    )
    .addOption(
      new Option(
        '--secure-port <n>',
        'HTTPS port of /healthz, /livez, /readyz (always allowed) and /metrics (a caller the API server authorizes) (0: pick a free one; -1: none)',
      )
        .argParser(intFlag)
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
 * Serves the endpoints as the flags say, over HTTPS with delegated authentication and authorization through
 * `client` (the component's own, as upstream's default --authentication-kubeconfig). A busy default port is logged
 * and skipped (many kscale processes share a machine); a port given explicitly that cannot be bound is an error.
 */
export async function startComponentEndpoints(
  component: string,
  o: Record<string, unknown>,
  explicit: boolean,
  registry: Registry,
  ready: () => boolean,
  client: RESTClient,
): Promise<ComponentEndpoints | undefined> {
  const port = o.securePort as number;
  if (!Number.isInteger(port) || port < 0) return undefined;
  const certFile = o.tlsCertFile as string | undefined;
  const keyFile = o.tlsPrivateKeyFile as string | undefined;
  if ((certFile === undefined) !== (keyFile === undefined))
    throw new Error('--tls-cert-file and --tls-private-key-file go together');
  const bind = o.bindAddress as string;
  const pair =
    certFile === undefined || keyFile === undefined
      ? await selfSignedServingCert(`kube-${component}`, [bind])
      : { certPEM: readFileSync(certFile, 'utf8'), keyPEM: readFileSync(keyFile, 'utf8') };
  const clientCAFile = o.clientCaFile as string | undefined;
  const tls = { ...pair, ...(clientCAFile === undefined ? {} : { clientCA: readFileSync(clientCAFile, 'utf8') }) };
  try {
    const ep = await serveComponentEndpoints({
      bindAddress: `${bind}:${port}`,
      registry,
      ready,
      tls,
      auth: new DelegatedAuth(client),
    });
    process.stdout.write(`kscale ${component} serving /metrics and /healthz on ${ep.url}\n`);
    return ep;
  } catch (err) {
    if (explicit || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    process.stderr.write(`kscale ${component}: port ${port} is in use; not serving /metrics and /healthz\n`);
    return undefined;
  }
}
