/**
 * The live progress display: phase, nodes Ready, pods created, scheduled and
 * running, API QPS and p99, elapsed time and ETA. On a terminal it redraws
 * bars in place; otherwise (CI, a pipe, a log file) it prints one plain line
 * every few seconds.
 */

/** What the display shows at one moment. */
export interface ProgressState {
  phase: string;
  elapsedS: number;
  nodes: { ready: number; total: number };
  /** Counts since the start (seen, scheduled, running), pods that exist now (live), and the scenario's pod count. */
  pods: { seen: number; scheduled: number; running: number; live: number; target: number };
  qps: number;
  /** p99 of mutating calls over the last scrape interval, seconds; NaN when unknown. */
  p99S: number;
  /** Seconds left in the current phase, when it can be estimated. */
  etaS?: number;
}

const fmtTime = (s: number): string => {
  const t = Math.max(0, Math.round(s));
  const m = Math.floor(t / 60);
  return `${m}:${String(t % 60).padStart(2, '0')}`;
};

function bar(done: number, total: number, width: number): string {
  const f = total <= 0 ? 0 : Math.min(1, done / total);
  const full = Math.round(f * width);
  return `[${'#'.repeat(full)}${'.'.repeat(width - full)}]`;
}

/** The progress sink: TTY bars or plain lines. */
export class Progress {
  private drawnLines = 0;
  private lastPlain = -Infinity;

  constructor(
    private readonly out: NodeJS.WriteStream | { write(s: string): boolean; isTTY?: boolean },
    private readonly plainEveryS = 10,
  ) {}

  /** True when bars are drawn in place. */
  get tty(): boolean {
    return this.out.isTTY === true;
  }

  /** Prints a message above the bars (or as a line). */
  log(msg: string): void {
    this.clear();
    this.out.write(`${msg}\n`);
  }

  /** Updates the display. */
  update(s: ProgressState): void {
    const p99 = Number.isNaN(s.p99S) ? '-' : `${(s.p99S * 1000).toFixed(0)}ms`;
    const eta = s.etaS === undefined ? '' : ` eta ${fmtTime(s.etaS)}`;
    if (!this.tty) {
      if (s.elapsedS - this.lastPlain < this.plainEveryS) return;
      this.lastPlain = s.elapsedS;
      this.out.write(
        `[${fmtTime(s.elapsedS)}] phase=${s.phase} nodes=${s.nodes.ready}/${s.nodes.total} pods created=${s.pods.seen} scheduled=${s.pods.scheduled} running=${s.pods.running}/${s.pods.target} live=${s.pods.live} qps=${s.qps.toFixed(0)} p99=${p99}${eta}\n`,
      );
      return;
    }
    const lines = [
      `phase ${s.phase.padEnd(16)} elapsed ${fmtTime(s.elapsedS)}${eta}`,
      `nodes Ready    ${bar(s.nodes.ready, s.nodes.total, 30)} ${s.nodes.ready}/${s.nodes.total}`,
      `pods created   ${bar(s.pods.seen, s.pods.target, 30)} ${s.pods.seen}/${s.pods.target}`,
      `pods scheduled ${bar(s.pods.scheduled, s.pods.target, 30)} ${s.pods.scheduled}`,
      `pods running   ${bar(s.pods.running, s.pods.target, 30)} ${s.pods.running}`,
      `pods live      ${bar(s.pods.live, s.pods.target, 30)} ${s.pods.live}`,
      `API ${s.qps.toFixed(0)} req/s, mutating p99 ${p99}`,
    ];
    this.clear();
    this.out.write(`${lines.join('\n')}\n`);
    this.drawnLines = lines.length;
  }

  /** Removes the bars (before a log line, or at the end). */
  clear(): void {
    if (this.tty && this.drawnLines > 0) this.out.write(`\x1b[${this.drawnLines}A\x1b[0J`);
    this.drawnLines = 0;
  }
}
