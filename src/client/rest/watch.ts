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

/** A running watch: iterate it with `for await`, end it with `stop()`. */
export interface Watch<T = KubeObject> extends AsyncIterable<WatchEvent<T>> {
  /** Closes the stream; iteration ends without delivering buffered events. */
  stop(): void;
  /** Stops the watch on `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** Events buffered before the socket is paused, like client-go's result channel size (100). */
export const DEFAULT_WATCH_BUFFER = 100;

/** Wraps a 200 watch response as a Watch with a bounded buffer. */
export class StreamWatch<T = KubeObject> implements Watch<T> {
  private readonly queue: WatchEvent<T>[] = [];
  private partial = '';
  private ended = false;
  private stopped = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly res: ResponseStream,
    private readonly bufferSize = DEFAULT_WATCH_BUFFER,
  ) {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => this.onData(chunk));
    res.on('end', () => this.finish());
    res.on('error', (err) => this.finish(err));
    // 'close' without 'end' is a connection lost mid-stream.
    res.on('close', () =>
      this.finish(
        res.complete ? undefined : Object.assign(new Error('watch stream closed unexpectedly'), { code: 'ECONNRESET' }),
      ),
    );
  }

  private onData(chunk: string): void {
    const text = this.partial + chunk;
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      const line = text.slice(start, nl).trim();
      start = nl + 1;
      if (line === '') continue;
      try {
        this.queue.push(JSON.parse(line) as WatchEvent<T>);
      } catch {
        this.finish(new Error(`watch: cannot decode event: ${line.slice(0, 200)}`));
        this.res.destroy();
        return;
      }
    }
    this.partial = text.slice(start);
    if (this.queue.length >= this.bufferSize && !this.res.isPaused()) this.res.pause();
    this.notify();
  }

  private finish(err?: Error): void {
    if (this.ended) return;
    this.ended = true;
    if (err !== undefined && !this.stopped) this.failure = err;
    this.notify();
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
