/**
 * A watch as an AsyncIterable, like client-go's watch.Interface over a
 * StreamWatcher: the response is split into lines, one JSON WatchEvent per
 * line. The buffer is bounded: when the consumer falls behind, the socket is
 * paused, so backpressure reaches the server (which then closes a watcher
 * that stays slow) instead of memory growing here. Stopping is explicit.
 */
import type { KubeObject, Status } from '../../api/index.js';
import type { ResponseStream } from './transport.js';

/** The event types of a watch stream. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** One decoded event; an ERROR carries a Status (410 Expired when the RV is too old). */
export type WatchEvent<T = KubeObject> =
  { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: T } | { type: 'ERROR'; object: Status };

/** Where a consumed watch delivers: each event as it is decoded, then its end (with the error, if any). */
export interface WatchSink<T = KubeObject> {
  event(ev: WatchEvent<T>): void;
  /** The stream ended (the server's timeout, or `err`); not called after `stop()`. */
  end(err?: Error): void;
}

/** A running watch: iterate it with `for await` (or hand it a sink with `consume`), end it with `stop()`. */
export interface Watch<T = KubeObject> extends AsyncIterable<WatchEvent<T>> {
  /**
   * Delivers events to `sink` as they arrive, instead of through iteration: no generator, promise or queue
   * per watch while it waits, which is what a hollow fleet's 127,000 reference watches cost. At most once,
   * and not together with iteration. Optional: a watch without it is iterated.
   */
  consume?(sink: WatchSink<T>): void;
  /** Closes the stream; iteration ends without delivering buffered events. */
  stop(): void;
  /** Stops the watch on `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

const NEWLINE = 0x0a;

/** Whether bytes [from, to) are only JSON whitespace (an empty line, or a line of a pretty-printed stream's padding). */
function isBlank(buf: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const b = buf[i];
    if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  }
  return true;
}

/** Events buffered before the socket is paused, like client-go's result channel size (100). */
export const DEFAULT_WATCH_BUFFER = 100;

/** Wraps a 200 watch response as a Watch with a bounded buffer. */
export class StreamWatch<T = KubeObject> implements Watch<T> {
  private readonly queue: WatchEvent<T>[] = [];
  private partial: Buffer | undefined;
  private ended = false;
  private stopped = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  private sink: WatchSink<T> | undefined;

  constructor(
    private readonly res: ResponseStream,
    private readonly bufferSize = DEFAULT_WATCH_BUFFER,
  ) {
    res.on('data', (chunk: Buffer) => this.onData(chunk));
    res.on('end', () => this.finish());
    res.on('error', (err) => this.finish(err));
    // 'close' without 'end' is a connection lost mid-stream.
    res.on('close', () =>
      this.finish(
        res.complete ? undefined : Object.assign(new Error('watch stream closed unexpectedly'), { code: 'ECONNRESET' }),
      ),
    );
  }

  /**
   * Splits bytes into lines and decodes each whole line; only a line cut by a chunk boundary is copied. Works
   * on bytes rather than a utf8-decoded string (no concatenated, sliced and trimmed copy of every event),
   * which is safe because a newline byte never occurs inside a multi-byte UTF-8 sequence.
   */
  private onData(chunk: Buffer): void {
    let buf = chunk;
    if (this.partial !== undefined) {
      buf = Buffer.concat([this.partial, chunk]);
      this.partial = undefined;
    }
    let start = 0;
    for (let nl = buf.indexOf(NEWLINE); nl >= 0; nl = buf.indexOf(NEWLINE, start)) {
      const from = start;
      start = nl + 1;
      if (isBlank(buf, from, nl)) continue;
      const line = buf.toString('utf8', from, nl);
      let ev: WatchEvent<T>;
      try {
        ev = JSON.parse(line) as WatchEvent<T>;
      } catch {
        return this.fail(new Error(`watch: cannot decode event: ${line.trim().slice(0, 200)}`));
      }
      if (this.sink === undefined) this.queue.push(ev);
      else if (!this.deliver(ev)) return;
    }
    // A bounded copy: the rest of one event, kept apart from the chunk's (possibly pooled) memory.
    if (start < buf.length) this.partial = Buffer.from(buf.subarray(start));
    if (this.queue.length >= this.bufferSize && !this.res.isPaused()) this.res.pause();
    this.notify();
  }

  /** Hands one event to the sink; false when no more may follow (it stopped the watch, or threw: the watch fails). */
  private deliver(ev: WatchEvent<T>): boolean {
    try {
      this.sink!.event(ev);
    } catch (err) {
      this.fail(err instanceof Error ? err : new Error(String(err)));
      return false;
    }
    return !this.stopped;
  }

  private fail(err: Error): void {
    this.ended = false; // a stream that had ended cleanly still fails with what its consumer threw
    this.finish(err);
    this.res.destroy();
  }

  private finish(err?: Error): void {
    if (this.ended) return;
    this.ended = true;
    if (err !== undefined && !this.stopped) this.failure = err;
    if (this.sink !== undefined && !this.stopped) this.sink.end(this.failure);
    this.notify();
  }

  consume(sink: WatchSink<T>): void {
    if (this.sink !== undefined) throw new Error('watch already consumed');
    this.sink = sink;
    // What arrived before: the events, then the end if it came.
    for (let ev = this.queue.shift(); ev !== undefined; ev = this.queue.shift()) if (!this.deliver(ev)) return;
    if (this.ended) {
      if (!this.stopped) sink.end(this.failure);
      return;
    }
    if (this.res.isPaused()) this.res.resume();
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.queue.length = 0;
    this.res.destroy();
    this.finish();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.stop();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent<T>, void, undefined> {
    try {
      for (;;) {
        if (this.stopped) return;
        const ev = this.queue.shift();
        if (ev !== undefined) {
          if (this.res.isPaused() && this.queue.length < this.bufferSize / 2 && !this.ended) this.res.resume();
          yield ev;
          continue;
        }
        if (this.ended) {
          if (this.failure !== undefined) throw this.failure;
          return;
        }
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      // Leaving the loop early (break, throw in the body) must not leak the socket.
      this.stop();
    }
  }
}
