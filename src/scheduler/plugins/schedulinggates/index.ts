/** SchedulingGates: a pod with spec.schedulingGates stays out of the active queue until they are removed. */
import { ActionType, type EnqueueExtensions, type PreEnqueuePlugin } from '../../framework/interface.js';
import { Code, pluginStatus } from '../../framework/status.js';

/** The plugin name. */
export const NAME = 'SchedulingGates';

/** Holds gated pods; a pod update (gates removed) requeues them through the queue's update path. */
export function schedulingGates(): PreEnqueuePlugin & EnqueueExtensions {
  return {
    name: NAME,
    preEnqueue(pod) {
      const gates = pod.pod.spec?.schedulingGates ?? [];
      if (gates.length === 0) return null;
      return pluginStatus(
        NAME,
        Code.UnschedulableAndUnresolvable,
        `waiting for scheduling gates: ${gates.map((g) => g.name).join(', ')}`,
      );
    },
    eventsToRegister: () => [{ event: { resource: 'UnscheduledPod', action: ActionType.Update } }],
  };
}
