/** Leader election on a coordination.k8s.io Lease, like client-go's tools/leaderelection. */
export { LeaderElector, type LeaderElectionConfig } from './leader_elector.js';
export {
  setLeaderElectionMetricsProvider,
  prometheusLeaderElectionMetrics,
  type LeaderElectionMetricsProvider,
} from './metrics.js';
export {
  candidateIdentity,
  electionSettings,
  leaderElectionFlags,
  withLeaderElectionFlags,
  type LeaderElectionFlags,
} from './flags.js';
