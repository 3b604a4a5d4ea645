/**
 * The event loop's handle on the writer thread. Writes submitted while a
 * commit is in flight are queued and sent together as the next batch: group
 * commit, so one fsync acknowledges many writes.
 *
 * A batch holds at most MAX_BATCH_WRITES writes. Without a cap, clients that
 * each wait for their last answer fall into step: every write lands in one
 * batch, the event loop sits idle while it commits, and then answers all of
 * them at once, so they all come back together again (measured at 64
 * connections: batches of 63 and 1, the event loop idle 24% of the time,
 * ~20% fewer updates/s). Capped, such a burst splits into two or more batches,
 * and the event loop prepares one while the writer commits another.
 *
 * A backlog is another matter. Each batch's answer waits for a turn of the
 * event loop, so under load the cap bounds the writes committed per turn: at
 * 2,500 hollow nodes, with turns of 100 ms and more, 300–370 writes queued and
 * each waited 1–2.5 s for commits of 1–10 ms. Past BACKLOG_WRITES queued
 * writes a batch takes up to MAX_BACKLOG_BATCH_WRITES of them (and at most
 * MAX_BATCH_BYTES of values), as etcd's raft batches every proposal waiting:
 * a backlog is committed in one or two turns, not a dozen.
 */
import { Worker } from 'node:worker_threads';
import { StorageError, unavailable } from '../errors.js';
import type { Expiry, OpResult, Request, Response, WriteOp, WriterConfig } from './protocol.js';

interface Pending {
  op: WriteOp;
  resolve: (r: OpResult) => void;
  /** performance.now() when it was queued. */
  at: number;
}

/** How a batch whose oldest write waited long came to wait: for the log line of a slow queue. */
export interface SlowQueue {
  /** How long the batch's oldest write waited for the writer thread, in ms. */
  waitMs: number;
  /** Writes still queued behind this batch. */
  queued: number;
  /** The previous commit's time in the writer thread (transaction and fsync), in ms. */
  lastCommitMs: number;
  /** How long the previous commit's answer waited for the event loop after the writer sent it, in ms. */
  lastAnswerWaitMs: number;
}

/** Counters for metrics and benchmarks. */
export interface WriterStats {
  commits: number;
  writes: number;
  /** The longest single commit (transaction + fsync) in ms. */
  maxCommitMs: number;
  /** The most writes a single commit carried. */
  maxBatchWrites: number;
  /** Writes refused because the queue was full. */
  rejected: number;
}

/** The most writes one commit carries (see above); 32 writes still share each fsync. */
export const MAX_BATCH_WRITES = 32;

/** More queued writes than this are a backlog, not clients in step: batches may then be larger (see above). */
export const BACKLOG_WRITES = 2 * MAX_BATCH_WRITES;

/** The most writes one commit of a backlog carries. */
export const MAX_BACKLOG_BATCH_WRITES = 1024;

/** The most bytes of values one batch of a backlog carries (a batch always takes at least one write). */
export const MAX_BATCH_BYTES = 16 * 1024 * 1024;

/**
 * The most writes waiting for the writer thread. Past it a write fails at once
 * with Busy (429 and Retry-After to the client), so a stalled disk sheds load
 * instead of holding ever more requests and their bodies in memory.
 */
export const DEFAULT_MAX_QUEUED_WRITES = 10_000;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Runs the writer thread and batches writes into group commits. */
export class Writer {
  private readonly worker: Worker;
  private queue: Pending[] = [];
  private inflight = 0;
  private readonly maxInflight = 1;
  private seq = 0;
  private readonly calls = new Map<
    number,
    { resolve: (r: Response) => void; reject: (e: unknown) => void; batch?: Pending[]; sentAt?: number }
  >();
  private failed: StorageError | null = null;
  private scheduled = false;
  private lastCommitMs = 0;
  private lastAnswerWaitMs = 0;
  readonly stats: WriterStats = { commits: 0, writes: 0, maxCommitMs: 0, maxBatchWrites: 0, rejected: 0 };

  constructor(
    cfg: WriterConfig,
    /** Called with each committed batch, in commit order, before any write in it is acknowledged. */
    private readonly onCommit: (batch: { op: WriteOp; result: OpResult }[]) => void,
    private readonly onAlarm: (noSpace: boolean) => void,
    /** Called after a commit that took at least `slowCommitMs`, with its duration and size. */
    private readonly onSlowCommit?: (commitMs: number, writes: number) => void,
    private readonly slowCommitMs = 1_000,
    private readonly maxQueued = DEFAULT_MAX_QUEUED_WRITES,
    /** Called when a batch's oldest write waited `slowCommitMs` or longer before the batch went to the writer thread. */
    private readonly onSlowQueue?: (q: SlowQueue) => void,
  ) {
    this.worker = new Worker(new URL('./writer_worker.js', import.meta.url), { workerData: cfg });
    this.worker.on('message', (msg: Response) => this.onMessage(msg));
    this.worker.on('error', (err) => this.fail(unavailable(`storage writer failed: ${err.message}`, err)));
    this.worker.on('exit', (code) => this.fail(unavailable(`storage writer exited (code ${code})`)));
  }

  /** Writes waiting for the writer thread (not yet in a commit). */
  get queued(): number {
    return this.queue.length;
  }

  /** Why every write now fails (the thread died or the store closed), or null while the writer is alive. */
  get failure(): string | null {
    return this.failed?.message ?? null;
  }

  /** Queues one write; resolves once it is committed (and fsynced, in full sync mode). */
  write(op: WriteOp): Promise<OpResult> {
    if (this.failed !== null) return Promise.reject(this.failed);
    if (this.queue.length >= this.maxQueued) {
      this.stats.rejected++;
      return Promise.resolve({
        ok: false,
        code: 'Busy',
        message: `storage write queue is full (${this.maxQueued} writes waiting for the disk)`,
      });
    }
    return new Promise((resolve) => {
      this.queue.push({ op, resolve, at: performance.now() });
      this.schedule();
    });
  }

  /** Deletes keys whose TTL passed at `now`. */
  async expire(now: number): Promise<Expiry[]> {
    const r = await this.call({ type: 'expire', now });
    return r.type === 'expire' ? r.expired : [];
  }

  /** Sends a maintenance request (compact, vacuum, checkpoint, close) and waits for it. */
  async call(req: DistributiveOmit<Request, 'id'>): Promise<Response> {
    if (this.failed !== null) throw this.failed;
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject });
      this.worker.postMessage({ ...req, id });
    });
  }

  /** Stops the thread after pending writes are committed. */
  async close(): Promise<void> {
    while (this.queue.length > 0 || this.inflight > 0) await new Promise((r) => setTimeout(r, 1));
    if (this.failed === null) {
      await this.call({ type: 'close' });
      this.failed = unavailable('storage is closed');
    }
    await this.worker.terminate();
  }

  private schedule(): void {
    if (this.scheduled || this.inflight >= this.maxInflight) return;
    this.scheduled = true;
    // Let every write submitted in this turn of the event loop join the batch.
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.queue.length === 0 || this.inflight >= this.maxInflight || this.failed !== null) return;
    const n = this.queue.length > BACKLOG_WRITES ? backlogBatchSize(this.queue) : MAX_BATCH_WRITES;
    const batch = this.queue.length <= n ? this.queue : this.queue.splice(0, n);
    if (batch === this.queue) this.queue = [];
    this.inflight++;
    const id = ++this.seq;
    const sentAt = performance.now();
    const waitMs = sentAt - batch[0]!.at;
    if (waitMs >= this.slowCommitMs)
      this.onSlowQueue?.({
        waitMs,
        queued: this.queue.length,
        lastCommitMs: this.lastCommitMs,
        lastAnswerWaitMs: this.lastAnswerWaitMs,
      });
    this.calls.set(id, { resolve: () => undefined, reject: () => undefined, batch, sentAt });
    const { ops, transfer } = packValues(batch.map((p) => p.op));
    this.worker.postMessage({ type: 'batch', id, ops } satisfies Request, transfer);
  }

  private onMessage(msg: Response): void {
    if (msg.type === 'alarm') {
      this.onAlarm(msg.noSpace);
      return;
    }
    const call = this.calls.get(msg.id);
    if (call === undefined) return;
    this.calls.delete(msg.id);
    if (msg.type === 'batch' && call.batch !== undefined) {
      this.inflight--;
      this.lastCommitMs = msg.commitMs;
      // What is left of the round trip once the commit is taken out: mostly the answer waiting for the event loop.
      this.lastAnswerWaitMs = Math.max(0, performance.now() - (call.sentAt ?? 0) - msg.commitMs);
      this.stats.commits++;
      this.stats.writes += call.batch.length;
      this.stats.maxCommitMs = Math.max(this.stats.maxCommitMs, msg.commitMs);
      this.stats.maxBatchWrites = Math.max(this.stats.maxBatchWrites, call.batch.length);
      if (msg.commitMs >= this.slowCommitMs) this.onSlowCommit?.(msg.commitMs, call.batch.length);
      // Writes queued during this commit go to the writer before this batch is answered, so the
      // writer commits them while the event loop updates the cache and writes the answers.
      this.flush();
      const done = call.batch.map((p, i) => ({ op: p.op, result: msg.results[i] }));
      this.onCommit(done);
      for (let i = 0; i < call.batch.length; i++) call.batch[i].resolve(msg.results[i]);
      return;
    }
    if (msg.type === 'error')
      call.reject(new StorageError(msg.code === 'SQLITE_FULL' ? 'NoSpace' : 'Unavailable', msg.message));
    else call.resolve(msg);
  }

  private fail(err: StorageError): void {
    if (this.failed !== null) return;
    this.failed = err;
    for (const c of this.calls.values()) {
      if (c.batch !== undefined)
        for (const p of c.batch) p.resolve({ ok: false, code: 'Unavailable', message: err.message });
      else c.reject(err);
    }
    this.calls.clear();
    for (const p of this.queue) p.resolve({ ok: false, code: 'Unavailable', message: err.message });
    this.queue = [];
  }
}

/** How many of a backlog's first writes one batch takes: up to MAX_BACKLOG_BATCH_WRITES and MAX_BATCH_BYTES. */
function backlogBatchSize(queue: Pending[]): number {
  let bytes = 0;
  const max = Math.min(queue.length, MAX_BACKLOG_BATCH_WRITES);
  for (let i = 0; i < max; i++) {
    const op = queue[i]!.op;
    if (op.op !== 'delete') bytes += op.value.byteLength;
    if (bytes > MAX_BATCH_BYTES) return Math.max(1, i);
  }
  return max;
}

/**
 * The batch as it crosses to the writer thread: every value copied into one ArrayBuffer that is transferred,
 * not cloned. Structured cloning a Buffer clones its whole backing store, and a small Buffer (a Lease, an
 * Event) is a slice of Node's shared 8 KiB pool, so each write cost a copy of the pool: three times the
 * message's CPU, and 4% of the API server's at 500 hollow nodes. The callers' own buffers stay untouched
 * (the cache keeps them), so only the packed copy is transferred.
 */
export function packValues(ops: WriteOp[]): { ops: WriteOp[]; transfer: ArrayBuffer[] } {
  let total = 0;
  for (const op of ops) if (op.op !== 'delete') total += op.value.byteLength;
  if (total === 0) return { ops, transfer: [] };
  const packed = new Uint8Array(total);
  let at = 0;
  const wire = ops.map((op): WriteOp => {
    if (op.op === 'delete') return op;
    packed.set(op.value, at);
    const value = packed.subarray(at, at + op.value.byteLength);
    at += op.value.byteLength;
    return { ...op, value };
  });
  return { ops: wire, transfer: [packed.buffer] };
}
