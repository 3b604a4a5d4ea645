/**
 * Feeds one WatchCache from storage, like the cacher's reflector upstream:
 * a paginated list, then one watch with progress notifications from the
 * cache's revision. A watch that breaks is re-opened from the revision the
 * cache reached, so no event is lost and none is applied twice; only Expired
 * (the history is compacted away) or a detected gap (an event whose previous
 * value the cache does not hold: some event never arrived) forces a re-list.
 */
import type { Clock } from '../../clock/index.js';
import { isExpired } from '../errors.js';
import { failpointsEnabled, hit } from '../../failpoint/index.js';
import type { KeyValue, ListResult, Storage, WatchEvent, Watcher } from '../interface.js';

/** What the reflector drives. */
export interface ReflectorSink {
  /** A fresh list at `revision` replaces the cache (and, after the first, ends every watcher). */
  replace(items: KeyValue[], revision: number): void;
  /** One event or progress notification, in order. */
  event(ev: WatchEvent): void;
  /** The revision to resume watching from. */
  revision(): number;
}

/** Where failures are reported; pino's `warn(obj, msg)` fits. */
export interface ReflectorLogger {
  warn(fields: Record<string, unknown>, msg: string): void;
}

const LIST_PAGE = 10_000;
/** Events applied in a row before yielding, so watchers' consumers (sockets) get to run during a burst. */
const YIELD_EVERY = 256;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The list-and-watch loop of one resource prefix. */
export class Reflector {
  /** Lists done (the first is the initialization), watches opened, failures seen. */
  readonly stats = { lists: 0, watches: 0, failures: 0, gaps: 0 };
  private stopped = false;
  private current: Watcher | null = null;

  constructor(
    private readonly storage: Storage,
    private readonly prefix: string,
    private readonly clock: Clock,
    private readonly sink: ReflectorSink,
    private readonly log?: ReflectorLogger,
  ) {}

  /** Runs until stop(); failures are retried with backoff, never thrown. */
  async run(): Promise<void> {
    let needList = true;
    let failures = 0;
    while (!this.stopped) {
      let delivered = 0;
      try {
        if (needList) {
          const { items, revision } = await this.listAll();
          if (this.stopped) break;
          // A member behind what the cache has already seen is an error to retry, never a rollback.
          if (revision < this.sink.revision())
            throw new Error(`storage listed at revision ${revision}, older than ${this.sink.revision()} already seen`);
          this.sink.replace(items, revision);
          this.stats.lists++;
          needList = false;
        }
        const w = this.storage.watch(this.prefix, { fromRevision: this.sink.revision(), progressNotify: true });
        this.current = w;
        this.stats.watches++;
        for await (const ev of w) {
          if (this.stopped) break;
          if (failpointsEnabled) await hit(`cacher/reflector${this.prefix}`);
          this.sink.event(ev);
          failures = 0;
          if (++delivered % YIELD_EVERY === 0) await nextTurn();
        }
        if (!this.stopped && delivered === 0) failures++;
      } catch (err) {
        if (this.stopped) break;
        failures++;
        this.stats.failures++;
        if (isExpired(err) || (err as Error).name === 'WatchGapError') needList = true;
        if ((err as Error).name === 'WatchGapError') this.stats.gaps++;
        this.log?.warn(
          { prefix: this.prefix, err: (err as Error).message, relist: needList },
          'watch cache: storage watch failed, restarting',
        );
      } finally {
        this.current?.stop();
        this.current = null;
      }
      // The first retry is immediate (a restart loses nothing); later ones back off up to 30 s.
      if (failures > 1) await this.clock.sleep(Math.min(30_000, 100 * 2 ** Math.min(failures - 2, 9)));
      else await nextTurn();
    }
  }

  /** Stops the loop and the storage watch. */
  stop(): void {
    this.stopped = true;
    this.current?.stop();
  }

  /** Lists the whole prefix in pages pinned to the first page's revision. */
  private async listAll(): Promise<{ items: KeyValue[]; revision: number }> {
    const items: KeyValue[] = [];
    let token: string | undefined;
    let revision = 0;
    do {
      const page: ListResult = await this.storage.list(this.prefix, {
        limit: LIST_PAGE,
        ...(token === undefined ? {} : { continue: token }),
      });
      revision = page.revision;
      for (const kv of page.items) items.push(kv);
      token = page.continue;
    } while (token !== undefined && !this.stopped);
    return { items, revision };
  }
}
