/** apps, batch, coordination, discovery, scheduling, policy and autoscaling (Scale) definitions. */
import type { StructDesc } from './dsl.js';

const top = (spec?: string, status?: string): StructDesc => ({
  apiVersion: 'string', kind: 'string', metadata: 'meta.ObjectMeta', ...(spec ? { spec } : {}), ...(status ? { status } : {}),
});
const condition = (extra: StructDesc = {}): StructDesc => ({
  type: 'string', status: 'string', ...extra, lastTransitionTime: 'Time', reason: 'string', message: 'string',
});

/** Non-core definitions by short name. */
export const WORKLOAD_DEFS: Record<string, StructDesc> = {
  'apps.Deployment': top('apps.DeploymentSpec', 'apps.DeploymentStatus'),
  'apps.DeploymentSpec': {
    replicas: 'int', selector: 'meta.LabelSelector', template: 'core.PodTemplateSpec', strategy: 'apps.DeploymentStrategy',
    minReadySeconds: 'int', revisionHistoryLimit: 'int', paused: 'boolean', progressDeadlineSeconds: 'int',
  },
  'apps.DeploymentStrategy': { type: 'string', rollingUpdate: 'apps.RollingUpdateDeployment' },
  'apps.RollingUpdateDeployment': { maxUnavailable: 'IntOrString', maxSurge: 'IntOrString' },
  'apps.DeploymentStatus': {
    observedGeneration: 'int64', replicas: 'int', updatedReplicas: 'int', readyReplicas: 'int', availableReplicas: 'int',
    unavailableReplicas: 'int', terminatingReplicas: 'int', conditions: '[]apps.DeploymentCondition@type', collisionCount: 'int',
  },
  'apps.DeploymentCondition': condition({ lastUpdateTime: 'Time' }),
  'apps.ReplicaSet': top('apps.ReplicaSetSpec', 'apps.ReplicaSetStatus'),
  'apps.ReplicaSetSpec': { replicas: 'int', minReadySeconds: 'int', selector: 'meta.LabelSelector', template: 'core.PodTemplateSpec' },
  'apps.ReplicaSetStatus': {
    replicas: 'int', fullyLabeledReplicas: 'int', readyReplicas: 'int', availableReplicas: 'int', terminatingReplicas: 'int',
    observedGeneration: 'int64', conditions: '[]apps.ReplicaSetCondition@type',
  },
  'apps.ReplicaSetCondition': condition(),

  'batch.Job': top('batch.JobSpec', 'batch.JobStatus'),
  'batch.JobSpec': {
    parallelism: 'int', completions: 'int', activeDeadlineSeconds: 'int64', podFailurePolicy: 'batch.PodFailurePolicy',
    successPolicy: 'batch.SuccessPolicy', backoffLimit: 'int', backoffLimitPerIndex: 'int', maxFailedIndexes: 'int',
    selector: 'meta.LabelSelector', manualSelector: 'boolean', template: 'core.PodTemplateSpec', ttlSecondsAfterFinished: 'int',
    completionMode: 'string', suspend: 'boolean', podReplacementPolicy: 'string', managedBy: 'string',
  },
  'batch.PodFailurePolicy': { rules: '[]batch.PodFailurePolicyRule' },
  'batch.PodFailurePolicyRule': {
    action: 'string', onExitCodes: 'batch.PodFailurePolicyOnExitCodesRequirement', onPodConditions: '[]batch.PodFailurePolicyOnPodConditionsPattern',
  },
  'batch.PodFailurePolicyOnExitCodesRequirement': { containerName: 'string', operator: 'string', values: '[]int' },
  'batch.PodFailurePolicyOnPodConditionsPattern': { type: 'string', status: 'string' },
  'batch.SuccessPolicy': { rules: '[]batch.SuccessPolicyRule' },
  'batch.SuccessPolicyRule': { succeededIndexes: 'string', succeededCount: 'int' },
  'batch.JobStatus': {
    conditions: '[]batch.JobCondition@type', startTime: 'Time', completionTime: 'Time', active: 'int', succeeded: 'int', failed: 'int',
    terminating: 'int', completedIndexes: 'string', failedIndexes: 'string', uncountedTerminatedPods: 'batch.UncountedTerminatedPods', ready: 'int',
  },
  'batch.JobCondition': condition({ lastProbeTime: 'Time' }),
  'batch.UncountedTerminatedPods': { succeeded: '[]string', failed: '[]string' },

  'coordination.Lease': top('coordination.LeaseSpec'),
  'coordination.LeaseSpec': {
    holderIdentity: 'string', leaseDurationSeconds: 'int', acquireTime: 'MicroTime', renewTime: 'MicroTime', leaseTransitions: 'int',
    strategy: 'string', preferredHolder: 'string',
  },

  'discovery.EndpointSlice': { ...top(), addressType: 'string', endpoints: '[]discovery.Endpoint', ports: '[]discovery.EndpointPort' },
  'discovery.Endpoint': {
    addresses: '[]string', conditions: 'discovery.EndpointConditions', hostname: 'string', targetRef: 'core.ObjectReference',
    deprecatedTopology: 'map[string]', nodeName: 'string', zone: 'string', hints: 'discovery.EndpointHints',
  },
  'discovery.EndpointConditions': { ready: 'boolean', serving: 'boolean', terminating: 'boolean' },
  'discovery.EndpointHints': { forZones: '[]discovery.ForZone', forNodes: '[]discovery.ForNode' },
  'discovery.ForZone': { name: 'string' },
  'discovery.ForNode': { name: 'string' },
  'discovery.EndpointPort': { name: 'string', protocol: 'string', port: 'int', appProtocol: 'string' },

  'scheduling.PriorityClass': { ...top(), value: 'int', globalDefault: 'boolean', description: 'string', preemptionPolicy: 'string' },

  'policy.PodDisruptionBudget': top('policy.PodDisruptionBudgetSpec', 'policy.PodDisruptionBudgetStatus'),
  'policy.PodDisruptionBudgetSpec': {
    minAvailable: 'IntOrString', selector: 'meta.LabelSelector', maxUnavailable: 'IntOrString', unhealthyPodEvictionPolicy: 'string',
  },
  'policy.PodDisruptionBudgetStatus': {
    observedGeneration: 'int64', disruptedPods: 'map[Time]', disruptionsAllowed: 'int', currentHealthy: 'int', desiredHealthy: 'int',
    expectedPods: 'int', conditions: '[]meta.Condition@type',
  },
  'policy.Eviction': { ...top(), deleteOptions: 'meta.DeleteOptions' },

  'autoscaling.Scale': top('autoscaling.ScaleSpec', 'autoscaling.ScaleStatus'),
  'autoscaling.ScaleSpec': { replicas: 'int' },
  'autoscaling.ScaleStatus': { replicas: 'int', selector: 'string' },
};
