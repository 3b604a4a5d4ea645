/** The DaemonSet controller (pkg/controller/daemon). */
export { DaemonSetsController, DAEMONSET_CONTROLLER, KIND_DAEMONSET } from './daemon_controller.js';
export { DEFAULT_DAEMONSET_OPTIONS, type DaemonSetControllerOptions } from './config.js';
export { nodeShouldRunDaemonPod, daemonPodTolerations, nodeNameAffinity, targetNodeName } from './util.js';
export { podsShouldBeOnNode, rollingUpdatePlan, daemonSetStatusCounts, surgeAndUnavailable } from './update.js';
