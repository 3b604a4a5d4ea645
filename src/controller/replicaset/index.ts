/** The ReplicaSet controller (pkg/controller/replicaset). */
export { ReplicaSetController, REPLICASET_CONTROLLER } from './replica_set.js';
export { DEFAULT_REPLICASET_OPTIONS, type ReplicaSetControllerOptions } from './config.js';
export { calculateStatus, updateReplicaSetStatus } from './replica_set_utils.js';
