/**
 * WATCH: one compact JSON WatchEvent per line, headers flushed at once,
 * selectors applied to both the new and the previous object (an object that
 * stops matching is sent as DELETED, one that starts matching as ADDED, like
 * upstream's watchers), bookmarks only when asked, 410 as an ERROR event
 * followed by a clean close, and a server-side timeout. Events come from the
 * object-level storage contract with each object's bytes encoded once; one
 * frame line per event is built from them and shared between watchers.
 *
 * The handler returns once the watch is set up; events are then pushed to a
 * WatchResponse (consumeWatch), so an idle watch holds one small object and
 * its listeners instead of a suspended handler chain: the server holds about
 * 100,000 of them at 2,500 nodes, and the garbage collector walks each.
 */
import { groupVersionString } from '../../api/index.js';
import { badRequest, expired as expiredStatus, timeout as timeoutStatus } from '../../api/index.js';
import { consumeWatch, isStorageError, type ObjectEvent, type ObjectWatcher } from '../../storage/index.js';
import { negotiateOutput, type Output } from '../negotiation.js';
import { printTable, tableFor } from '../registry/index.js';
import type { ResourcePrinter } from '../registry/printers/index.js';
import type { Obj } from '../object.js';
import type { RestContext, ServerServices } from './context.js';
import { indexFromSelector, parseRV, residualPredicate, selectorPredicate } from './read.js';
import type { OpenWatch } from './open_watches.js';
import { sharedFrame } from './watch_frames.js';
import { queryBool } from '../query.js';

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/**
 * What a watch's response may hold unsent before its watcher pauses for 'drain'. A response's own mark (Node's
 * 16 KiB) passed about four pod events per event-loop turn: the writes leave for the socket only after the turn, so
 * a cluster-wide pod watch (the scheduler's, the controllers') fell seconds behind whenever turns grew long under
 * load, after a major GC most of all. client-go's and kscale's clients open 4 MiB stream windows, so this much
 * would be in flight on the wire anyway; a watcher that stops reading is still closed by the cache's TooSlow budget.
 */
export const WATCH_BUFFER_BYTES = 1 << 20;

/** Sets up a watch of a resource and returns; its events stream until the client leaves, the timeout passes, or it breaks. */
export async function handleWatch(ctx: RestContext): Promise<void> {
  const { res, info, resource, services } = ctx;
  const q = info.query;
  const rv = parseRV(q.get('resourceVersion'));
  const bookmarks = queryBool(q, 'allowWatchBookmarks');
  const t = q.get('timeoutSeconds');
  const min = services.minRequestTimeoutSeconds;
  const asked = t === null || t === '' ? 0 : Number(t);
  if (!Number.isFinite(asked) || asked < 0) throw badRequest(`invalid timeoutSeconds: ${t}`);
  // Like kube-apiserver: an unset or zero timeout is randomized in [min, 2*min) so clients do not reconnect in
  // lock-step.
  const timeoutSeconds = asked === 0 ? min * (1 + Math.random()) : asked;
  const predicate = selectorPredicate(ctx);
  const out = negotiateOutput(ctx.req, q);
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  const index = indexFromSelector(ctx);
  const residual = residualPredicate(ctx, index, predicate);
  const w = ctx.store.objects.watchObjects({
    // "0" and unset: synthetic ADDED events for the current state (unset: a consistent read of it), then changes after it.
    ...(rv !== undefined && rv > 0 ? { fromRevision: rv } : { initialEvents: true, consistent: rv === undefined }),
    ...(resource.namespaced && info.namespace !== '' ? { namespace: info.namespace } : {}),
    ...(index === undefined ? {} : { index }),
    ...(residual === undefined ? {} : { predicate: residual as (o: unknown) => boolean }),
    allowBookmarks: bookmarks,
    deadline: services.clock.now() + timeoutSeconds * 1000,
  });
  const table = out.table ? { out, printer: ctx.printer ?? tableFor(resource), headersSent: false } : undefined;
  const response = new WatchResponse(
    res,
    w,
    services,
    resource.kind,
    groupVersionString(resource.group, resource.version),
    table,
  );
  response.start(timeoutSeconds);
}

/** Table output state: column definitions go with the first event only, as upstream's watch of Tables does. */
interface TableState {
  out: Output;
  printer: ResourcePrinter;
  headersSent: boolean;
}

/**
 * One watch's response: writes each event as a line, pauses the watcher while WATCH_BUFFER_BYTES wait unsent, ends it
 * once. Exported for tests.
 */
export class WatchResponse implements OpenWatch {
  private closed = false;
  private resumer: { resume(): void } | undefined;
  /** Its key in services.openWatches. */
  private filed = 0;

  constructor(
    private readonly res: RestContext['res'],
    private readonly w: ObjectWatcher,
    private readonly services: ServerServices,
    private readonly kind: string,
    private readonly gv: string,
    private readonly table: TableState | undefined,
  ) {}

  /** Streams the watcher's events until the client leaves or `timeoutSeconds` pass. */
  start(timeoutSeconds: number): void {
    this.res.on('close', this.onClose);
    this.filed = this.services.openWatches.add(this, timeoutSeconds * 1000);
    this.resumer = consumeWatch(this.w, this);
  }

  /** Ends the watch (its timeout, or shutdown): the stream ends once what is buffered is written. */
  stop(): void {
    this.w.stop();
  }

  private readonly onClose = (): void => {
    this.closed = true;
    this.w.stop();
    // Whatever is still buffered goes nowhere; then the watcher ends.
    this.resumer?.resume();
  };

  private readonly onDrain = (): void => this.resumer?.resume();

  /** One event; false while the socket is full. */
  item(ev: ObjectEvent): boolean {
    if (this.closed) return true;
    if (ev.type === 'BOOKMARK')
      return this.frame('BOOKMARK', {
        kind: this.kind,
        apiVersion: this.gv,
        metadata: { resourceVersion: String(ev.revision) },
      });
    const o = ev.object!;
    if (this.table !== undefined) return this.frame(ev.type, o.decode() as Obj);
    return this.write(sharedFrame(ev.type, o), 'latin1');
  }

  /** The watch ended: an error becomes an ERROR event (TooSlow just ends the stream; the client re-watches). */
  end(err?: unknown): void {
    if (err !== undefined && !this.closed) {
      if (isStorageError(err, 'Expired')) this.frame('ERROR', expiredStatus(err.message).status as unknown as Obj);
      else if (isStorageError(err, 'TooLargeResourceVersion'))
        this.frame('ERROR', timeoutStatus(err.message, 1).status as unknown as Obj);
      else if (!isStorageError(err, 'TooSlow'))
        this.frame('ERROR', {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: (err as Error).message,
          reason: 'InternalError',
          code: 500,
        });
    }
    this.services.openWatches.delete(this, this.filed);
    this.res.off('close', this.onClose);
    this.res.off('drain', this.onDrain);
    if (!this.closed) this.res.end();
  }

  /** Writes one line: a shared frame (latin1, see watch_frames.ts), or JSON this response made (utf8). */
  private write(line: string, encoding: 'latin1' | 'utf8' = 'utf8'): boolean {
    if (this.closed || this.res.write(line, encoding) || this.res.writableLength < WATCH_BUFFER_BYTES) return true;
    this.res.once('drain', this.onDrain);
    return false;
  }

  private frame(type: EventType, obj: Obj): boolean {
    const table = this.table;
    if (table !== undefined && (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED')) {
      const t = printTable(table.printer, [obj], {
        now: this.services.clock.now(),
        includeObject: table.out.includeObject,
        noHeaders: table.headersSent,
      });
      table.headersSent = true;
      return this.write(`{"type":"${type}","object":${JSON.stringify(t)}}\n`);
    }
    return this.write(`{"type":"${type}","object":${JSON.stringify(obj)}}\n`);
  }
}
