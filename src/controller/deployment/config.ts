/** Deployment controller settings, with upstream's defaults. */

/** DeploymentControllerConfiguration. */
export interface DeploymentControllerOptions {
  /** --concurrent-deployment-syncs: workers syncing Deployments at once. */
  concurrentDeploymentSyncs: number;
}

/** Upstream's default: 5 workers. */
export const DEFAULT_DEPLOYMENT_OPTIONS: DeploymentControllerOptions = { concurrentDeploymentSyncs: 5 };
