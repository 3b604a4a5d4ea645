/**
 * In-process watch fan-out for the embedded store. Commits are pushed here
 * directly by the writer's acknowledgement path, so watchers are woken on
 * commit with no poller (kine polls once a second). A new watcher replays
 * history from the log, then joins the live stream with no gap and no
 * duplicate: live events that arrive during the replay are held back and
 * released after it.
 */
import type { Clock, Timer } from '../../clock/index.js';
import { expired } from '../errors.js';
import type { WatchEvent, Watcher } from '../interface.js';
import { WatchChannel } from '../watch_channel.js';
import type { LogRow } from './reader.js';

interface HubWatcher {
  prefix: string;
  channel: WatchChannel;
  /** The last revision delivered (or replayed); later events only. */
  lastRev: number;
  /** Live events held while the replay runs; null once live. */
  held: WatchEvent[] | null;
  progress: boolean;
  /** Whether an event or progress was sent since the last progress tick. */
  active: boolean;
}

/** What the hub needs from the store. */
export interface HubSource {
  log(prefix: string, after: number, upTo: number, limit: number): LogRow[];
  compactedRevision(): number;
}

const REPLAY_PAGE = 2_000;

/** Fans committed events out to watchers by key prefix. */
export class WatchHub {
  private readonly watchers = new Set<HubWatcher>();
  private readonly ticker: Timer;
  /** The revision of the last event dispatched: every event at or below it was delivered to live watchers. */
  private dispatched: number;

  constructor(
    private readonly source: HubSource,
    startRevision: number,
    clock: Clock,
    progressIntervalMs: number,
    private readonly capacity = 100_000,
  ) {
    this.dispatched = startRevision;
    this.ticker = clock.setInterval(() => this.tick(), progressIntervalMs);
  }

  /** The highest revision whose events were dispatched. */
  get revision(): number {
    return this.dispatched;
  }

  /** Number of open watchers. */
  get size(): number {
    return this.watchers.size;
  }

  /** Starts a watch of `prefix` after `fromRevision` (0: from now). */
  watch(prefix: string, fromRevision: number, progress: boolean): Watcher {
    const w: HubWatcher = {
      prefix,
      channel: new WatchChannel(this.capacity, () => this.watchers.delete(w)),
      lastRev: fromRevision > 0 ? fromRevision : this.dispatched,
      held: null,
      progress,
      active: true,
    };
    const compacted = this.source.compactedRevision();
    if (fromRevision > 0 && fromRevision < compacted) {
      w.channel.fail(expired(fromRevision, compacted));
      return w.channel;
    }
    this.watchers.add(w);
    if (w.lastRev < this.dispatched) {
      w.held = [];
      this.replay(w, this.dispatched);
    }
    return w.channel;
  }

  /** Dispatches committed events (in revision order) to interested watchers. */
  dispatch(events: WatchEvent[]): void {
    if (events.length === 0) return;
    for (const w of this.watchers) {
      for (const ev of events) {
        if (ev.revision <= w.lastRev || !ev.key.startsWith(w.prefix)) continue;
        if (w.held !== null) {
          w.held.push(ev);
          continue;
        }
        w.lastRev = ev.revision;
        w.active = true;
        w.channel.push(ev);
      }
    }
    this.dispatched = events[events.length - 1].revision;
  }

  /** Sends a progress event now to every live watcher that asked for them. */
  requestProgress(): void {
    for (const w of this.watchers) {
      if (w.held === null && w.progress) this.sendProgress(w);
    }
  }

  /** Stops every watcher and the progress ticker. */
  close(): void {
    this.ticker.cancel();
    for (const w of [...this.watchers]) w.channel.stop();
  }

  private tick(): void {
    for (const w of this.watchers) {
      if (w.held === null && w.progress && !w.active) this.sendProgress(w);
      w.active = false;
    }
  }

  private sendProgress(w: HubWatcher): void {
    w.lastRev = Math.max(w.lastRev, this.dispatched);
    w.channel.push({ type: 'progress', revision: this.dispatched, key: '' });
  }

  /** Replays the log in pages, yielding to the event loop between pages. */
  private replay(w: HubWatcher, upTo: number): void {
    try {
      if (w.channel.closed) return;
      const compacted = this.source.compactedRevision();
      if (w.lastRev < compacted) throw expired(w.lastRev, compacted);
      const rows = this.source.log(w.prefix, w.lastRev, upTo, REPLAY_PAGE);
      for (const r of rows) {
        w.channel.push(rowToEvent(r));
        w.lastRev = r.id;
      }
      if (rows.length === REPLAY_PAGE && w.channel.length < this.capacity / 2) {
        setImmediate(() => this.replay(w, upTo));
        return;
      }
      if (rows.length === REPLAY_PAGE) {
        // The consumer is slow; wait for it to drain before reading more history.
        setTimeout(() => this.replay(w, upTo), 5);
        return;
      }
      w.lastRev = upTo;
      const held = w.held ?? [];
      w.held = null;
      for (const ev of held) {
        if (ev.revision <= w.lastRev) continue;
        w.lastRev = ev.revision;
        w.channel.push(ev);
      }
    } catch (err) {
      w.channel.fail(err);
    }
  }
}

function rowToEvent(r: LogRow): WatchEvent {
  const prevKv =
    r.prevId === null || r.prevId === undefined
      ? undefined
      : { key: r.name, value: r.prevValue!, createRevision: r.prevCreated!, modRevision: r.prevId };
  if (r.deleted === 1) {
    return {
      type: 'delete',
      revision: r.id,
      key: r.name,
      kv: { key: r.name, value: prevKv?.value ?? Buffer.alloc(0), createRevision: r.created, modRevision: r.id },
      ...(prevKv === undefined ? {} : { prevKv }),
    };
  }
  return {
    type: 'put',
    revision: r.id,
    key: r.name,
    kv: { key: r.name, value: r.value, createRevision: r.created, modRevision: r.id },
    ...(prevKv === undefined ? {} : { prevKv }),
  };
}
