/**
 * The watches a write will notify, as upstream's flowcontrol/request
 * watchTracker counts them: each open watch is filed under its resource, its
 * namespace (when it has one) and its object name (the exact
 * `metadata.name=` of its field selector); a write is charged for the watches
 * of its whole resource, of its namespace, and of its very object. So one
 * kubelet's watch of one ConfigMap does not make every ConfigMap write pay for
 * it, as a count of all the resource's watchers did.
 */
import { selectedName, type RequestInfo } from '../request_info.js';

/** Stops counting a watch; call it once the watch has ended. */
export type ForgetWatch = () => void;

const READ_ONLY = new Set(['get', 'list', 'watch']);

/** Open watches by resource, namespace and name. */
export class WatchTracker {
  private readonly counts = new Map<string, number>();

  /** Files one watch request; returns what forgets it. */
  register(info: RequestInfo): ForgetWatch {
    const key = keyOf(info.apiGroup, info.resource, info.namespace, selectedName(info));
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    let forgotten = false;
    return () => {
      if (forgotten) return;
      forgotten = true;
      const n = (this.counts.get(key) ?? 1) - 1;
      if (n === 0) this.counts.delete(key);
      else this.counts.set(key, n);
    };
  }

  /** The open watches a write of `info` notifies; 0 for reads. */
  interestedCount(info: RequestInfo): number {
    if (READ_ONLY.has(info.verb)) return 0;
    const { apiGroup: g, resource: r, namespace: ns, name } = info;
    let n = this.counts.get(keyOf(g, r, '', '')) ?? 0;
    if (ns !== '') n += this.counts.get(keyOf(g, r, ns, '')) ?? 0;
    if (name !== '') n += this.counts.get(keyOf(g, r, ns, name)) ?? 0;
    return n;
  }
}

function keyOf(group: string, resource: string, namespace: string, name: string): string {
  return `${group}/${resource}/${namespace}/${name}`;
}
