/** The clusterrole-aggregation controller (pkg/controller/clusterroleaggregation). */
export {
  aggregateRules,
  ClusterRoleAggregationController,
  CLUSTERROLE_AGGREGATION_CONTROLLER,
} from './clusterroleaggregation_controller.js';
