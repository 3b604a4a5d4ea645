/** NodePorts: a pod asking for a host port fits only nodes where that port is free. */
import {
  ActionType,
  type EnqueueExtensions,
  type FilterPlugin,
  type PreFilterPlugin,
} from '../../framework/interface.js';
import { Code, pluginStatus } from '../../framework/status.js';

/** The plugin name. */
export const NAME = 'NodePorts';
const SKIP = pluginStatus(NAME, Code.Skip);
const CONFLICT = pluginStatus(NAME, Code.Unschedulable, "node(s) didn't have free ports for the requested pod ports");

/** Filters nodes whose host ports clash (0.0.0.0 clashes with every address). */
export function nodePorts(): PreFilterPlugin & FilterPlugin & EnqueueExtensions {
  return {
    name: NAME,
    preFilter: (_s, pod) => (pod.hostPorts.length === 0 ? SKIP : null),
    filter(_s, pod, node) {
      if (pod.hostPorts.length === 0 || node.usedPorts === undefined) return null;
      for (const want of pod.hostPorts) {
        const [proto, ip, port] = want.split('/');
        for (const used of node.usedPorts.keys()) {
          const [uProto, uIp, uPort] = used.split('/');
          if (uProto === proto && uPort === port && (ip === uIp || ip === '0.0.0.0' || uIp === '0.0.0.0'))
            return CONFLICT;
        }
      }
      return null;
    },
    eventsToRegister: () => [
      { event: { resource: 'AssignedPod', action: ActionType.Delete } },
      { event: { resource: 'Node', action: ActionType.Add } },
    ],
  };
}
