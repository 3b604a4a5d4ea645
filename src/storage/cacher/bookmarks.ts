/**
 * Bookmark scheduling, like upstream's watcherBookmarkTimeBuckets: watchers
 * that allow bookmarks are filed in one-second buckets by when their next
 * bookmark is due, so each tick touches only the watchers that are due.
 * Cadence: about once a minute, and about 2 s before the watch's deadline.
 */

/** Upstream's bookmarkFrequency. */
export const BOOKMARK_FREQUENCY_MS = 60_000;
/** A bookmark goes out this long before a watch's deadline, so the client can resume from it. */
export const PRE_TIMEOUT_MS = 2_000;

/** When the next bookmark is due, or undefined when none should be sent (upstream's nextBookmarkTime). */
export function nextBookmarkTime(now: number, frequencyMs: number, deadline?: number): number | undefined {
  let t = now + frequencyMs;
  if (deadline !== undefined) {
    const pre = deadline - PRE_TIMEOUT_MS;
    if (pre < t) t = pre;
  }
  // Strictly later than now: once the pre-timeout bookmark is sent, none is due again.
  return t <= now ? undefined : t;
}

/** Items filed by the second they are due in. */
export class BookmarkBuckets<T> {
  private readonly buckets = new Map<number, T[]>();
  private lowest: number;

  constructor(now: number) {
    this.lowest = Math.floor(now / 1000);
  }

  /** Files `item` to come due at `at` (clock ms). */
  add(item: T, at: number): void {
    const b = Math.max(Math.floor(at / 1000), this.lowest);
    let list = this.buckets.get(b);
    if (list === undefined) this.buckets.set(b, (list = []));
    list.push(item);
  }

  /** Removes and returns every item due at or before `now`. */
  popDue(now: number): T[] {
    const upTo = Math.floor(now / 1000);
    const out: T[] = [];
    for (; this.lowest <= upTo; this.lowest++) {
      const list = this.buckets.get(this.lowest);
      if (list === undefined) continue;
      this.buckets.delete(this.lowest);
      for (const x of list) out.push(x);
    }
    return out;
  }
}
