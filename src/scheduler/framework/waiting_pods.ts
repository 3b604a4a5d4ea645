/**
 * Pods held at Permit, like upstream's waitingPodsMap: each waits until every
 * plugin that said Wait allows it, any plugin rejects it, or its timeout
 * (the shortest the plugins asked for) fires, which rejects it.
 */
import type { Clock, Timer } from '../../clock/index.js';
import type { WaitingPod } from './interface.js';
import type { PodInfo } from './pod_info.js';
import { Code, newStatus, SUCCESS, type Status } from './status.js';

/** One waiting pod. */
export class WaitingPodImpl implements WaitingPod {
  private readonly pending: Set<string>;
  private timer: Timer | undefined;
  private settle!: (s: Status) => void;
  /** Resolves with Success (allowed) or Unschedulable (rejected or timed out). */
  readonly result: Promise<Status>;
  private done = false;

  constructor(
    readonly pod: PodInfo,
    readonly nodeName: string,
    plugins: Map<string, number>,
    clock: Clock,
    private readonly onDone: () => void,
  ) {
    this.pending = new Set(plugins.keys());
    this.result = new Promise<Status>((r) => (this.settle = r));
    let min = Infinity;
    let who = '';
    for (const [p, ms] of plugins) {
      if (ms < min) {
        min = ms;
        who = p;
      }
    }
    this.timer = clock.setTimeout(() => this.reject(who, 'rejected due to timeout after waiting at permit'), min);
  }

  pendingPlugins(): string[] {
    return [...this.pending];
  }

  allow(plugin: string): void {
    this.pending.delete(plugin);
    if (this.pending.size === 0) this.finish(SUCCESS);
  }

  reject(plugin: string, message: string): void {
    const s = newStatus(Code.Unschedulable, message);
    s.plugin = plugin;
    this.finish(s);
  }

  private finish(s: Status): void {
    if (this.done) return;
    this.done = true;
    this.timer?.cancel();
    this.timer = undefined;
    this.onDone();
    this.settle(s);
  }
}
