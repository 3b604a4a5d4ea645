/**
 * Where a hollow kubelet's share of pod startup goes, recorded per started
 * pod, so the lab can split "scheduled → Running watched" into the fleet's
 * own delay and the API server's:
 * - lateness: how long after its simulated start was due the pod's start
 *   task ran (the fleet's timer queue, event loop and per-pod work chain);
 * - statusPatch: the Running status PATCH from send to response, as the
 *   client sees it (includes waiting for one of the fleet's shared sockets).
 * Samples are bounded: past `cap`, new samples overwrite old ones in a ring.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/** The event loop sampler's period; its histogram holds whole intervals, so this much is subtracted. */
const LOOP_RESOLUTION_MS = 10;

/** p50/p90/p99/max (ms) and how many samples. */
export interface MsPercentiles {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** What `PodStartStats.snapshot` reports. */
export interface PodStartSnapshot {
  lateness: MsPercentiles;
  statusPatch: MsPercentiles;
  /** The fleet process's event loop delay since it started (beyond the sampler's own period). */
  eventLoopDelay: MsPercentiles;
}

class SampleRing {
  private readonly values: Float64Array;
  private n = 0;

  constructor(private readonly cap: number) {
    this.values = new Float64Array(cap);
  }

  add(v: number): void {
    this.values[this.n % this.cap] = v;
    this.n++;
  }

  percentiles(): MsPercentiles {
    const s = this.values.slice(0, Math.min(this.n, this.cap)).sort();
    const at = (q: number): number =>
      s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
    return { count: this.n, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: s.length === 0 ? NaN : s[s.length - 1]! };
  }
}

/** Pod start timings shared by every kubelet of a fleet. */
export class PodStartStats {
  private readonly lateness: SampleRing;
  private readonly statusPatch: SampleRing;
  private readonly loop: IntervalHistogram;

  constructor(cap = 200_000) {
    this.lateness = new SampleRing(cap);
    this.statusPatch = new SampleRing(cap);
    this.loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    this.loop.enable();
  }

  /** One pod started: its start task ran `latenessMs` after it was due, and its status PATCH took `patchMs`. */
  record(latenessMs: number, patchMs: number): void {
    this.lateness.add(Math.max(0, latenessMs));
    this.statusPatch.add(patchMs);
  }

  snapshot(): PodStartSnapshot {
    const ms = (ns: number): number => Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS);
    const h = this.loop;
    return {
      lateness: this.lateness.percentiles(),
      statusPatch: this.statusPatch.percentiles(),
      eventLoopDelay: {
        count: h.count,
        p50: ms(h.percentile(50)),
        p90: ms(h.percentile(90)),
        p99: ms(h.percentile(99)),
        max: ms(h.max),
      },
    };
  }

  stop(): void {
    this.loop.disable();
  }
}
