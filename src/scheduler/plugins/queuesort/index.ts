/** PrioritySort, upstream's default QueueSort: higher priority first, then earlier queue time. */
import type { QueuedPodInfo, QueueSortPlugin } from '../../framework/interface.js';

/** The plugin name. */
export const NAME = 'PrioritySort';

/** Orders by priority (descending), then timestamp. */
export function prioritySort(): QueueSortPlugin {
  return {
    name: NAME,
    less: (a: QueuedPodInfo, b: QueuedPodInfo) =>
      a.podInfo.priority > b.podInfo.priority ||
      (a.podInfo.priority === b.podInfo.priority && a.timestamp < b.timestamp),
  };
}
