/** The Deployment controller (pkg/controller/deployment). */
export { DeploymentController, DEPLOYMENT_CONTROLLER } from './deployment_controller.js';
export { DEFAULT_DEPLOYMENT_OPTIONS, type DeploymentControllerOptions } from './config.js';
export { REASONS as DEPLOYMENT_REASONS, getDeploymentCondition } from './conditions.js';
export {
  computeHash,
  equalIgnoreHash,
  revision,
  DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
} from './deployment_util.js';
