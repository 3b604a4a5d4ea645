/**
 * Informer handlers, like upstream's eventhandlers.go: assigned pods go to
 * the cache (confirming assumed ones), pending pods of our profiles to the
 * queue; node and pod changes move unschedulable pods back when a plugin
 * registered for that kind of event. Other resources that plugins registered
 * events for are watched through the informer factory, like upstream's
 * dynamic informers.
 */
import { metaNamespaceKeyFunc, unwrapDeleted, type GroupVersionResource, type KubeObject } from '../client/index.js';
import { ActionType, type ClusterEventResource } from './framework/interface.js';
import { newPodInfo } from './framework/pod_info.js';
import type { Node, Pod } from '../api/index.js';
import type { Scheduler } from './scheduler.js';

const BUILT_IN = new Set<ClusterEventResource>(['Node', 'AssignedPod', 'UnscheduledPod']);

/** The resource of "<resource>.<version>.<group>", like upstream's schema.ParseResourceArg (listed in all namespaces). */
function parseResource(r: string): GroupVersionResource {
  const [resource, version, ...group] = r.split('.');
  return { group: group.join('.'), version: version ?? '', resource: resource ?? '', namespaced: true };
}

const assigned = (p: Pod): boolean => (p.spec?.nodeName ?? '') !== '';
const terminal = (p: Pod): boolean => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

function schedulingChanged(a: Pod, b: Pod): boolean {
  // Like upstream's isPodUpdated: status-only changes (such as our own PodScheduled=False) do not requeue.
  return (
    JSON.stringify(a.spec) !== JSON.stringify(b.spec) ||
    JSON.stringify(a.metadata?.labels) !== JSON.stringify(b.metadata?.labels) ||
    a.metadata?.deletionTimestamp !== b.metadata?.deletionTimestamp
  );
}

function nodeActions(a: Node, b: Node): number {
  let act = 0;
  if (JSON.stringify(a.status?.allocatable) !== JSON.stringify(b.status?.allocatable))
    act |= ActionType.UpdateNodeAllocatable;
  if (JSON.stringify(a.metadata?.labels) !== JSON.stringify(b.metadata?.labels)) act |= ActionType.UpdateNodeLabel;
  if (
    JSON.stringify(a.spec?.taints) !== JSON.stringify(b.spec?.taints) ||
    a.spec?.unschedulable !== b.spec?.unschedulable
  )
    act |= ActionType.UpdateNodeTaint;
  return act;
}

/** Wires the scheduler's informers to its cache and queue. */
export function registerEventHandlers(s: Scheduler): void {
  const { cache, queue } = s;
  const deleteAssigned = (p: Pod): void => {
    cache.removePod(metaNamespaceKeyFunc(p));
    queue.moveAllToActiveOrBackoffQueue({ resource: 'AssignedPod', action: ActionType.Delete }, p, undefined);
  };
  const deletePending = (p: Pod): void => {
    queue.delete(metaNamespaceKeyFunc(p));
    for (const f of s.profiles.values()) f.waiting.get(p.metadata?.uid ?? '')?.reject('', 'pod deleted');
    if (cache.isAssumed(metaNamespaceKeyFunc(p))) cache.removePod(metaNamespaceKeyFunc(p));
  };
  const addAssigned = (p: Pod): void => {
    const key = metaNamespaceKeyFunc(p);
    const confirming = cache.isAssumed(key);
    cache.addPod(newPodInfo(p), p.spec!.nodeName!);
    queue.delete(key);
    if (!confirming)
      queue.moveAllToActiveOrBackoffQueue({ resource: 'AssignedPod', action: ActionType.Add }, undefined, p);
  };
  s.podInformer.addEventHandler({
    onAdd: (p) => {
      if (terminal(p)) return;
      if (assigned(p)) return addAssigned(p);
      const info = newPodInfo(p);
      if (s.frameworkFor(info) === undefined) return;
      queue.add(info);
      queue.moveAllToActiveOrBackoffQueue({ resource: 'UnscheduledPod', action: ActionType.Add }, undefined, p);
    },
    onUpdate: (old, p) => {
      if (terminal(p))
        return assigned(old) || cache.hasPod(metaNamespaceKeyFunc(p)) ? deleteAssigned(p) : deletePending(p);
      if (assigned(p)) {
        if (!assigned(old) || cache.isAssumed(metaNamespaceKeyFunc(p))) return addAssigned(p);
        if (schedulingChanged(old, p)) {
          cache.addPod(newPodInfo(p), p.spec!.nodeName!);
          queue.moveAllToActiveOrBackoffQueue({ resource: 'AssignedPod', action: ActionType.Update }, old, p);
        } else cache.refreshPod(metaNamespaceKeyFunc(p), p);
        return;
      }
      if (cache.isAssumed(metaNamespaceKeyFunc(p)) || !schedulingChanged(old, p)) return;
      const info = newPodInfo(p);
      if (s.frameworkFor(info) === undefined) return;
      queue.update(info);
      queue.moveAllToActiveOrBackoffQueue({ resource: 'UnscheduledPod', action: ActionType.Update }, old, p);
    },
    onDelete: (o) => {
      const p = unwrapDeleted(o);
      if (assigned(p)) deleteAssigned(p);
      else deletePending(p);
    },
  });
  s.nodeInformer.addEventHandler({
    onAdd: (n) => {
      cache.setNode(n);
      queue.moveAllToActiveOrBackoffQueue({ resource: 'Node', action: ActionType.Add }, undefined, n);
    },
    onUpdate: (old, n) => {
      cache.setNode(n);
      const act = nodeActions(old, n);
      if (act !== 0) queue.moveAllToActiveOrBackoffQueue({ resource: 'Node', action: act }, old, n);
    },
    onDelete: (o) => cache.removeNode(unwrapDeleted(o).metadata?.name ?? ''),
  });
  // Other resources: the actions any plugin registered for, from the informer the plugin (or this) took from the factory.
  const others = new Map<ClusterEventResource, number>();
  for (const f of s.profiles.values()) {
    for (const events of f.events.values())
      for (const { event } of events)
        if (!BUILT_IN.has(event.resource)) others.set(event.resource, (others.get(event.resource) ?? 0) | event.action);
  }
  for (const [resource, actions] of others) {
    const move = (action: number, oldObj: KubeObject | undefined, newObj: KubeObject | undefined): void => {
      if ((actions & action) !== 0) queue.moveAllToActiveOrBackoffQueue({ resource, action }, oldObj, newObj);
    };
    s.informers.informerFor(parseResource(resource)).addEventHandler({
      onAdd: (o) => move(ActionType.Add, undefined, o),
      onUpdate: (old, o) => move(ActionType.Update, old, o),
      onDelete: (o) => move(ActionType.Delete, unwrapDeleted(o), undefined),
    });
  }
}
