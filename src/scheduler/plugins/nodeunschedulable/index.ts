/** NodeUnschedulable: cordoned nodes (spec.unschedulable) are filtered out unless the pod tolerates the unschedulable taint. */
import { ActionType, type EnqueueExtensions, type FilterPlugin } from '../../framework/interface.js';
import { Code, pluginStatus } from '../../framework/status.js';
import { tolerationsTolerateTaint } from '../../../api/index.js';

/** The plugin name. */
export const NAME = 'NodeUnschedulable';
const TAINT = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };
const UNSCHEDULABLE = pluginStatus(NAME, Code.UnschedulableAndUnresolvable, 'node(s) were unschedulable');

/** Filters cordoned nodes. */
export function nodeUnschedulable(): FilterPlugin & EnqueueExtensions {
  return {
    name: NAME,
    filter: (_s, pod, node) =>
      node.unschedulable && !tolerationsTolerateTaint(pod.tolerations, TAINT) ? UNSCHEDULABLE : null,
    eventsToRegister: () => [
      { event: { resource: 'Node', action: ActionType.Add | ActionType.UpdateNodeTaint | ActionType.Update } },
    ],
  };
}
