/**
 * Audit backends, like upstream's plugin/pkg/audit/log and buffered: the log
 * backend writes one JSON line per event; in blocking mode (upstream's default
 * for the log) the request's own turn writes it, in batch mode a bounded
 * buffer takes it and a background loop writes, dropping (and counting)
 * events when the buffer is full instead of ever holding a request.
 */
import type { AuditEvent } from '../../api/index.js';
import type { AuditMetrics } from './metrics.js';

/** Where events go (upstream's audit.Backend). */
export interface AuditBackend {
  /** Takes an event; never throws and never waits. */
  processEvent(ev: AuditEvent): void;
  /** Writes what is still buffered and releases the sink. */
  shutdown(): Promise<void>;
}

/** The destination of the log backend: a file (rotating) or stdout. */
export interface LogSink {
  writeSync(data: Buffer): void;
  write(data: Buffer): Promise<void>;
  close(): Promise<void>;
}

/** The log backend in blocking mode: each event is written before the request goes on. */
export class BlockingLogBackend implements AuditBackend {
  constructor(
    private readonly sink: LogSink,
    private readonly metrics: AuditMetrics,
  ) {}

  processEvent(ev: AuditEvent): void {
    try {
      this.sink.writeSync(Buffer.from(`${JSON.stringify(ev)}\n`));
    } catch {
      this.metrics.errors.inc({ plugin: 'log' });
    }
  }

  shutdown(): Promise<void> {
    return this.sink.close();
  }
}

/** --audit-log-batch-*: upstream's log defaults are a 10,000-event buffer and batches of 1. */
export interface BatchOptions {
  bufferSize: number;
  maxBatchSize: number;
  /** How long a partial batch waits for more events (ms); 0 writes at once. */
  maxBatchWaitMs: number;
}

/**
 * The log backend behind upstream's buffered backend: a full buffer drops the event, counted
 * as apiserver_audit_error_total{plugin="buffered"} as upstream labels it.
 */
export class BufferedLogBackend implements AuditBackend {
  private queue: string[] = [];
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly sink: LogSink,
    private readonly opts: BatchOptions,
    private readonly metrics: AuditMetrics,
  ) {}

  processEvent(ev: AuditEvent): void {
    if (this.queue.length >= this.opts.bufferSize) {
      this.metrics.errors.inc({ plugin: 'buffered' });
      return;
    }
    this.queue.push(JSON.stringify(ev));
    this.schedule();
  }

  /** Events waiting in the buffer. */
  get buffered(): number {
    return this.queue.length;
  }

  private schedule(): void {
    if (this.running !== undefined) return;
    const full = this.queue.length >= Math.max(1, this.opts.maxBatchSize) || this.opts.maxBatchWaitMs <= 0;
    // A full batch goes at once, as upstream's collectEvents stops at maxBatchSize; a partial one waits.
    if (full) {
      if (this.timer !== undefined) clearTimeout(this.timer);
      this.timer = undefined;
      this.running = this.drain();
    } else
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.running = this.drain();
      }, this.opts.maxBatchWaitMs);
  }

  /** Writes batches until the buffer is empty; a failed write counts its events as log errors. */
  private async drain(): Promise<void> {
    const batch = Math.max(1, this.opts.maxBatchSize);
    while (this.queue.length > 0) {
      const events = this.queue.splice(0, batch);
      try {
        await this.sink.write(Buffer.from(`${events.join('\n')}\n`));
      } catch {
        this.metrics.errors.inc({ plugin: 'log' }, events.length);
      }
    }
    this.running = undefined;
  }

  async shutdown(): Promise<void> {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
    if (this.queue.length > 0) await this.drain();
    await this.sink.close();
  }
}

/** The stdout sink for --audit-log-path=-. */
export const STDOUT_SINK: LogSink = {
  writeSync: (data) => void process.stdout.write(data),
  write: (data) =>
    new Promise<void>((resolve, reject) => process.stdout.write(data, (err) => (err ? reject(err) : resolve()))),
  close: () => Promise.resolve(),
};
