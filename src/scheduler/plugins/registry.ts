/**
 * The in-tree plugin registry and the default profile, like upstream's
 * plugins/registry.go and the v1 default plugin set. Coscheduling is
 * enabled by default here (PodGroup is a served type in kscale): it only
 * changes anything for pods labelled with a pod group, and its QueueSort
 * orders everything else exactly like PrioritySort. VolumeBinding is in the
 * default profile, as upstream; for a pod without claims its PreFilter
 * answers Skip without allocating and its PreBind returns at once.
 */
import type { PluginFactory } from '../framework/interface.js';
import { coscheduling, NAME as COSCHEDULING } from './coscheduling/index.js';
import { defaultBinder, NAME as DEFAULT_BINDER } from './defaultbinder/index.js';
import { defaultPreemption, NAME as DEFAULT_PREEMPTION } from './defaultpreemption/index.js';
import { interPodAffinity, NAME as INTER_POD_AFFINITY } from './interpodaffinity/index.js';
import { nodeAffinity, NAME as NODE_AFFINITY } from './nodeaffinity/index.js';
import { nodeName, NAME as NODE_NAME } from './nodename/index.js';
import { nodePorts, NAME as NODE_PORTS } from './nodeports/index.js';
import { balancedAllocation, BALANCED_ALLOCATION, FIT, nodeResourcesFit } from './noderesources/index.js';
import { nodeUnschedulable, NAME as NODE_UNSCHEDULABLE } from './nodeunschedulable/index.js';
import { podTopologySpread, NAME as POD_TOPOLOGY_SPREAD } from './podtopologyspread/index.js';
import { prioritySort, NAME as PRIORITY_SORT } from './queuesort/index.js';
import { schedulingGates, NAME as SCHEDULING_GATES } from './schedulinggates/index.js';
import { taintToleration, NAME as TAINT_TOLERATION } from './tainttoleration/index.js';
import { volumeBinding, NAME as VOLUME_BINDING } from './volumebinding/index.js';

/** Every in-tree plugin by name. */
export function inTreeRegistry(): Map<string, PluginFactory> {
  return new Map<string, PluginFactory>([
    [PRIORITY_SORT, () => prioritySort()],
    [SCHEDULING_GATES, () => schedulingGates()],
    [NODE_UNSCHEDULABLE, () => nodeUnschedulable()],
    [NODE_NAME, () => nodeName()],
    [TAINT_TOLERATION, () => taintToleration()],
    [NODE_AFFINITY, () => nodeAffinity()],
    [NODE_PORTS, () => nodePorts()],
    [FIT, (args) => nodeResourcesFit(args)],
    [BALANCED_ALLOCATION, () => balancedAllocation()],
    [POD_TOPOLOGY_SPREAD, (args, h) => podTopologySpread(args, h)],
    [INTER_POD_AFFINITY, (args, h) => interPodAffinity(args, h)],
    [DEFAULT_PREEMPTION, (args, h) => defaultPreemption(args, h)],
    [COSCHEDULING, (args, h) => coscheduling(args, h)],
    [DEFAULT_BINDER, (args, h) => defaultBinder(args, h)],
    [VOLUME_BINDING, (args, h) => volumeBinding(args, h)],
  ]);
}

/** The default multiPoint plugins and score weights, in upstream's order. */
export const DEFAULT_MULTI_POINT: readonly { name: string; weight?: number }[] = [
  { name: SCHEDULING_GATES },
  { name: COSCHEDULING },
  { name: NODE_UNSCHEDULABLE },
  { name: NODE_NAME },
  { name: TAINT_TOLERATION, weight: 3 },
  { name: NODE_AFFINITY, weight: 2 },
  { name: NODE_PORTS },
  { name: FIT, weight: 1 },
  { name: VOLUME_BINDING },
  { name: POD_TOPOLOGY_SPREAD, weight: 2 },
  { name: INTER_POD_AFFINITY, weight: 2 },
  { name: DEFAULT_PREEMPTION },
  { name: BALANCED_ALLOCATION, weight: 1 },
  { name: DEFAULT_BINDER },
];

/** PrioritySort is the default QueueSort, replaced by Coscheduling's when that is enabled. */
export { PRIORITY_SORT, COSCHEDULING };
