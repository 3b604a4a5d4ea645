/** The ReplicaSet controller (pkg/controller/replicaset), which also runs ReplicationControllers (pkg/controller/replication). */
export {
  ReplicaSetController,
  REPLICASET_CONTROLLER,
  REPLICASET_KIND,
  REPLICATIONCONTROLLER_CONTROLLER,
  REPLICATIONCONTROLLER_KIND,
  type ReplicaSetKind,
} from './replica_set.js';
export { DEFAULT_REPLICASET_OPTIONS, type ReplicaSetControllerOptions } from './config.js';
export { calculateStatus, updateReplicaSetStatus } from './replica_set_utils.js';
