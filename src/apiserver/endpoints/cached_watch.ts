/**
 * WATCH served by the watch cache: the cache applies selectors (as
 * transitions: entering is ADDED, leaving is DELETED), routes events through
 * its namespace and field indexes, and hands over each object's shared JSON
 * bytes; this writes them as frames. Bookmarks come from the cache at
 * upstream's cadence.
 */
import { expired as expiredStatus, timeout as timeoutStatus } from '../../api/status.js';
import type { Cacher } from '../../storage/cacher/index.js';
import { isStorageError } from '../../storage/index.js';
import type { Obj } from '../object.js';
import type { Predicate } from '../registry/store.js';
import type { RestContext } from './context.js';
import { indexFromSelector, residualPredicate } from './cached_read.js';
import { sharedFrame } from './watch_frames.js';

/** How the HTTP side writes frames; shared with the storage-backed watch. */
export interface FrameWriter {
  frame(type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR', obj: Obj | null, bytes?: Buffer): Promise<void>;
  /** Writes a ready-made frame line (JSON frames only). */
  line(frame: Buffer): Promise<void>;
  bookmark(revision: number): Promise<void>;
  closed(): boolean;
  /** Whether frames are Tables (then objects must be decoded). */
  table: boolean;
}

/** The parsed parameters of a watch request. */
export interface WatchRequest {
  rv: number | undefined;
  bookmarks: boolean;
  timeoutMs: number;
  predicate: Predicate | undefined;
}

/** Streams a watch from the cache until the client leaves, the timeout passes, or the watch breaks. */
export async function watchFromCache(ctx: RestContext, cacher: Cacher, indexed: readonly string[], r: WatchRequest, out: FrameWriter): Promise<void> {
  const index = indexFromSelector(ctx, indexed);
  r = { ...r, predicate: residualPredicate(ctx, index, r.predicate) };
  const now = ctx.services.clock.now();
  const w = cacher.watchObjects({
    ...(r.rv !== undefined && r.rv > 0 ? { fromRevision: r.rv } : { initialEvents: true, consistent: r.rv === undefined }),
    ...(ctx.resource.namespaced && ctx.info.namespace !== '' ? { namespace: ctx.info.namespace } : {}),
    ...(index === undefined ? {} : { index }),
    ...(r.predicate === undefined ? {} : { predicate: r.predicate as (o: unknown) => boolean }),
    allowBookmarks: r.bookmarks,
    deadline: now + r.timeoutMs,
  });
  const stop = (): void => w.stop();
  ctx.res.on('close', stop);
  ctx.services.openWatches.add(stop);
  const timer = ctx.services.clock.setTimeout(stop, Math.min(r.timeoutMs, 2 ** 31 - 1));
  try {
    for await (const ev of w) {
      if (out.closed()) break;
      if (ev.type === 'BOOKMARK') {
        await out.bookmark(ev.revision);
        continue;
      }
      const o = ev.object!;
      if (out.table) await out.frame(ev.type, o.decode() as Obj);
      else await out.line(sharedFrame(ev.type, o));
    }
  } catch (err) {
    if (isStorageError(err, 'Expired')) await out.frame('ERROR', expiredStatus(err.message).status as unknown as Obj);
    else if (isStorageError(err, 'TooLargeResourceVersion')) await out.frame('ERROR', timeoutStatus(err.message, 1).status as unknown as Obj);
    // TooSlow and anything else: end the stream; the client re-watches.
  } finally {
    timer.cancel();
    ctx.services.openWatches.delete(stop);
    ctx.res.off('close', stop);
    w.stop();
    if (!out.closed()) ctx.res.end();
  }
}
