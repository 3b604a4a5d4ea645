/** The StatefulSet controller (pkg/controller/statefulset). */
export { StatefulSetController, STATEFULSET_CONTROLLER, KIND_STATEFULSET } from './stateful_set.js';
export { DEFAULT_STATEFULSET_OPTIONS, type StatefulSetControllerOptions } from './config.js';
export {
  planStatefulSet,
  statefulSetStatus,
  newStatefulSetPod,
  usesCurrentRevision,
  STATEFULSET_POD_NAME_LABEL,
  POD_INDEX_LABEL,
} from './stateful_set_utils.js';
