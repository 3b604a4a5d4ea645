/**
 * The nodes' Table columns, as upstream's printNode: STATUS from the Ready
 * condition plus SchedulingDisabled, ROLES from node-role labels.
 */
import type { KubeObject, Node, NodeSystemInfo } from '../../../api/index.js';
import {
  ageColumn,
  column,
  docs,
  nameColumn,
  str,
  timestampSince,
  type PrintedRow,
  type ResourcePrinter,
} from '../printers/index.js';

const LABEL_NODE_ROLE_PREFIX = 'node-role.kubernetes.io/';
// The older single-valued role label, still honoured by kubectl.
const LABEL_NODE_ROLE = 'kubernetes.io/role';

/** Like upstream's findNodeRoles: sorted, de-duplicated role names. */
export function findNodeRoles(labels: Record<string, string> | undefined): string[] {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(labels ?? {})) {
    if (k.startsWith(LABEL_NODE_ROLE_PREFIX)) {
      const role = k.slice(LABEL_NODE_ROLE_PREFIX.length);
      if (role) roles.add(role);
    } else if (k === LABEL_NODE_ROLE && v !== '') {
      roles.add(v);
    }
  }
  return [...roles].sort();
}

/** "Ready", "NotReady" or "Unknown", with ",SchedulingDisabled" when cordoned. */
export function nodeStatus(node: Node): string {
  // The last condition of a type wins, as upstream builds a map.
  let ready: { status?: string } | undefined;
  for (const c of node.status?.conditions ?? []) if (c.type === 'Ready') ready = c;
  const status: string[] = [];
  if (ready) status.push(ready.status === 'True' ? 'Ready' : 'NotReady');
  else status.push('Unknown');
  if (node.spec?.unschedulable) status.push('SchedulingDisabled');
  return status.join(',');
}

function address(node: Node, type: string): string {
  const a = (node.status?.addresses ?? []).find((x) => x.type === type);
  return a ? str(a.address) : '<none>';
}

function printNode(obj: KubeObject, now: number): PrintedRow {
  const node = obj as Node;
  const info: Partial<NodeSystemInfo> = node.status?.nodeInfo ?? {};
  return {
    cells: [
      str(node.metadata?.name),
      nodeStatus(node),
      findNodeRoles(node.metadata?.labels).join(',') || '<none>',
      timestampSince(node.metadata?.creationTimestamp, now),
      str(info.kubeletVersion),
      address(node, 'InternalIP'),
      address(node, 'ExternalIP'),
      info.osImage || '<unknown>',
      info.kernelVersion || '<unknown>',
      info.containerRuntimeVersion || '<unknown>',
    ],
  };
}

/** Nodes: NAME STATUS ROLES AGE VERSION, wide INTERNAL-IP EXTERNAL-IP OS-IMAGE KERNEL-VERSION CONTAINER-RUNTIME. */
export const nodeTable: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Status', 'string', 'The status of the node'),
    column('Roles', 'string', 'The roles of the node'),
    ageColumn(),
    column('Version', 'string', docs.nodeInfoKubeletVersion),
    column('Internal-IP', 'string', docs.nodeStatusAddresses, { wide: true }),
    column('External-IP', 'string', docs.nodeStatusAddresses, { wide: true }),
    column('OS-Image', 'string', docs.nodeInfoOSImage, { wide: true }),
    column('Kernel-Version', 'string', docs.nodeInfoKernelVersion, { wide: true }),
    column('Container-Runtime', 'string', docs.nodeInfoContainerRuntimeVersion, { wide: true }),
  ],
  print: printNode,
};
