/** NodeName: a pod that names a node (spec.nodeName) fits only that node. */
import {
  ActionType,
  type EnqueueExtensions,
  type FilterPlugin,
  type PreFilterPlugin,
} from '../../framework/interface.js';
import { Code, pluginStatus } from '../../framework/status.js';

/** The plugin name. */
export const NAME = 'NodeName';
const SKIP = pluginStatus(NAME, Code.Skip);
const MISMATCH = pluginStatus(NAME, Code.UnschedulableAndUnresolvable, "node(s) didn't match the requested node name");

/** Filters every other node. */
export function nodeName(): PreFilterPlugin & FilterPlugin & EnqueueExtensions {
  return {
    name: NAME,
    preFilter: (_s, pod) => ((pod.pod.spec?.nodeName ?? '') === '' ? SKIP : null),
    filter(_s, pod, node) {
      const want = pod.pod.spec?.nodeName;
      return want === undefined || want === '' || want === node.name ? null : MISMATCH;
    },
    eventsToRegister: () => [{ event: { resource: 'Node', action: ActionType.Add } }],
  };
}
