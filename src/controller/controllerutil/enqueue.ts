/**
 * The informer handler most controllers start with: an object's key goes to
 * the work queue when it is added or updated, and (unless the controller
 * wants the key for something else, such as dropping expectations) when it
 * is deleted.
 */
import type { KubeObject } from '../../api/index.js';
import { metaNamespaceKeyFunc, type SharedInformer } from '../../client/index.js';

/** Queues the `namespace/name` key of every added, updated or deleted object; `onDelete` takes deleted keys instead when given. */
export function enqueueOnChange<T extends KubeObject>(
  informer: SharedInformer<T>,
  queue: { add(key: string): void },
  onDelete: (key: string) => void = (key) => queue.add(key),
): void {
  informer.addEventHandler({
    onAdd: (obj) => queue.add(metaNamespaceKeyFunc(obj)),
    onUpdate: (_old, obj) => queue.add(metaNamespaceKeyFunc(obj)),
    onDelete: (obj) => onDelete(metaNamespaceKeyFunc(obj)),
  });
}
