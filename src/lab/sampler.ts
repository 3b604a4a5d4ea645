/**
 * The lab's measurement loop: every scrape interval it reads the API
 * server's /metrics and every component's /proc entries, and keeps the
 * series the report is built from.
 */
import type { RESTClient } from '../client/index.js';
import { scrape, snapshotOf, type ApiSnapshot } from './api_metrics.js';
import { ProcSampler } from './proc.js';

/** Samples /metrics and /proc until stopped; with no server (a cluster whose /metrics the lab may not read), /proc only. */
export class Sampler {
  readonly snapshots: ApiSnapshot[] = [];
  readonly procs: ProcSampler;
  scrapeErrors = 0;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;

  constructor(
    private readonly server: string | RESTClient | undefined,
    private readonly processes: () => { name: string; pid: number }[],
    private readonly t0: number,
    private readonly intervalMs: number,
  ) {
    this.procs = new ProcSampler(t0);
  }

  /** Takes one sample now. */
  async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    const now = Date.now();
    try {
      this.procs.sample(this.processes(), now);
      if (this.server === undefined) return;
      const text = await scrape(this.server, AbortSignal.timeout(Math.max(5_000, this.intervalMs)));
      this.snapshots.push(snapshotOf(text, (now - this.t0) / 1000));
    } catch {
      // A slow or busy server misses a sample; the count goes into the report.
      this.scrapeErrors++;
    } finally {
      this.busy = false;
    }
  }

  /** Starts sampling every interval. */
  start(): void {
    void this.tick();
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
  }

  /** Stops sampling, after one last sample. */
  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    while (this.busy) await new Promise((r) => setTimeout(r, 50));
    await this.tick();
  }
}
