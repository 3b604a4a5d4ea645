/**
 * Leader election's metric, like client-go's tools/leaderelection/metrics.go:
 * `leader_election_master_status{name}` is 1 while this process leads the
 * lease `name` and 0 otherwise. A process reports to the provider it set.
 */
import { Gauge, type Registry } from 'prom-client';

/** What the leader elector reports, like client-go's leaderelection.MetricsProvider. */
export interface LeaderElectionMetricsProvider {
  on(name: string): void;
  off(name: string): void;
}

let provider: LeaderElectionMetricsProvider | undefined;

/** Sets where leader electors report, like client-go's leaderelection.SetProvider. */
export function setLeaderElectionMetricsProvider(p: LeaderElectionMetricsProvider | undefined): void {
  provider = p;
}

/** The provider set, if any. */
export function leaderElectionMetrics(): LeaderElectionMetricsProvider | undefined {
  return provider;
}

/** A provider with the `leader_election_master_status` gauge in `registry`. */
export function prometheusLeaderElectionMetrics(registry: Registry): LeaderElectionMetricsProvider {
  const g = new Gauge({
    name: 'leader_election_master_status',
    help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease.",
    labelNames: ['name'],
    registers: [registry],
  });
  return { on: (name) => g.set({ name }, 1), off: (name) => g.set({ name }, 0) };
}
