/** DefaultBinder: binds through the pods/binding subresource, the scheduler's only write to the pod. */
import type { BindPlugin, Handle } from '../../framework/interface.js';
import { asStatus, SUCCESS } from '../../framework/status.js';
import { RESOURCES } from '../../../client/index.js';

/** The plugin name. */
export const NAME = 'DefaultBinder';

/** POSTs a Binding. */
export function defaultBinder(_args: Record<string, unknown>, handle: Handle): BindPlugin {
  const pods = handle.client.resource(RESOURCES.pods);
  return {
    name: NAME,
    async bind(_s, pod, nodeName) {
      try {
        await pods.bind(pod.name, pod.namespace, nodeName);
        return SUCCESS;
      } catch (err) {
        return asStatus(err);
      }
    },
  };
}
