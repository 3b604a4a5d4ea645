/**
 * Reading a watch by push instead of `for await`: the consumer's sink gets
 * each event and returns false to pause (its socket is full) until resume().
 * A watcher that supports push (the cache's) holds no promise or suspended
 * function while idle, which is most of a watch's memory at ~100,000 watches;
 * any other async iterable is pumped by one loop.
 */

/** A consumer fed by push: `item` returns false to pause until resume(); `end` comes once, last. */
export interface WatchSink<T> {
  item(v: T): boolean;
  end(err?: unknown): void;
}

/** A watcher that can feed a sink itself. */
export interface Pushable<T> {
  consume(sink: WatchSink<T>): void;
  resume(): void;
}

function pushable<T>(w: AsyncIterable<T>): w is AsyncIterable<T> & Pushable<T> {
  return typeof (w as Partial<Pushable<T>>).consume === 'function';
}

/** Feeds every event of `w` to `sink`; returns what resumes it after `item` returned false. */
export function consumeWatch<T>(w: AsyncIterable<T>, sink: WatchSink<T>): { resume(): void } {
  if (pushable(w)) {
    w.consume(sink);
    return w;
  }
  return pump(w, sink);
}

/** One loop over any async iterable. */
function pump<T>(w: AsyncIterable<T>, sink: WatchSink<T>): { resume(): void } {
  let wake: (() => void) | undefined;
  const run = async (): Promise<void> => {
    try {
      for await (const v of w) {
        if (!sink.item(v)) await new Promise<void>((r) => (wake = r));
      }
    } catch (err) {
      sink.end(err);
      return;
    }
    sink.end();
  };
  void run();
  return {
    resume: () => {
      const f = wake;
      wake = undefined;
      f?.();
    },
  };
}
