/**
 * CycleState, like upstream's framework.CycleState: data plugins keep for
 * one pod's scheduling cycle (PreFilter results read by Filter, PreScore by
 * Score), plus the plugins that said Skip.
 */
import type { FilterPlugin } from './interface.js';

/** Per-cycle scratch space shared by the plugins. */
export class CycleState {
  private readonly data = new Map<string, unknown>();
  /** Filter plugins whose PreFilter returned Skip. */
  readonly skipFilter = new Set<string>();
  /** Score plugins whose PreScore returned Skip. */
  readonly skipScore = new Set<string>();
  /** The Filter plugins to run this cycle (those not skipped), fixed after PreFilter. */
  filters: readonly FilterPlugin[] | undefined;
  /**
   * PreFilterResult.NodeNames: when a PreFilter names the only nodes that can fit (a DaemonSet pod's
   * `metadata.name` node affinity), Filter runs on those alone; undefined means every node.
   */
  nodeNames: ReadonlySet<string> | undefined;

  /** Stores `value` under `key`. */
  write(key: string, value: unknown): void {
    this.data.set(key, value);
  }

  /** The value under `key`, or undefined. */
  read<T>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }

  /** A copy for what-if runs (preemption); values are shared, so plugins treat them as read-only. */
  clone(): CycleState {
    const c = new CycleState();
    for (const [k, v] of this.data) c.data.set(k, v);
    for (const s of this.skipFilter) c.skipFilter.add(s);
    for (const s of this.skipScore) c.skipScore.add(s);
    c.filters = this.filters;
    c.nodeNames = this.nodeNames;
    return c;
  }
}
