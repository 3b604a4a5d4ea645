/**
 * The controllerUID index, like upstream's controller.AddPodControllerUIDIndexer:
 * objects are filed under their controller's uid, orphans under their
 * namespace, so a sync reads only its own objects and the orphans it may
 * adopt, never the whole namespace.
 */
import type { KubeObject } from '../../api/index.js';
import type { Indexer, SharedInformer } from '../../client/index.js';
import { SharedInformerFactory } from '../../client/index.js';
import { getControllerOf } from './controller_ref_manager.js';

/** The index name. */
export const CONTROLLER_UID_INDEX = 'controllerUID';
const ORPHAN_PREFIX = 'orphan/';

/** Files an object under its controller's uid, or under `orphan/<namespace>`. */
export function controllerUIDIndexFunc(obj: KubeObject): string[] {
  const ref = getControllerOf(obj);
  return [ref !== undefined ? ref.uid : ORPHAN_PREFIX + (obj.metadata?.namespace ?? '')];
}

/** Adds the controllerUID index to an informer unless another controller already did. */
export function ensureControllerUIDIndex<T extends KubeObject>(informer: SharedInformer<T>): void {
  SharedInformerFactory.ensureIndex(informer, CONTROLLER_UID_INDEX, controllerUIDIndexFunc);
}

/** The objects `owner` controls plus the orphans of its namespace: everything a claim may keep or adopt. */
export function ownedAndOrphans<T extends KubeObject>(indexer: Indexer<T>, owner: KubeObject): T[] {
  return [
    ...indexer.byIndex(CONTROLLER_UID_INDEX, owner.metadata?.uid ?? ''),
    ...indexer.byIndex(CONTROLLER_UID_INDEX, ORPHAN_PREFIX + (owner.metadata?.namespace ?? '')),
  ];
}
