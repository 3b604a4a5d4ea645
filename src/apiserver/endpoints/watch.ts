/**
 * WATCH: one compact JSON WatchEvent per line, headers flushed at once,
 * selectors applied to both the new and the previous object (an object that
 * stops matching is sent as DELETED, one that starts matching as ADDED, like
 * upstream's watchers), bookmarks only when asked, 410 as an ERROR event
 * followed by a clean close, and a server-side timeout. Events come from the
 * object-level storage contract with each object's bytes encoded once; one
 * frame line per event is built from them and shared between watchers.
 */
import { groupVersionString } from '../../api/index.js';
import { badRequest, expired as expiredStatus, timeout as timeoutStatus } from '../../api/index.js';
import { isStorageError } from '../../storage/index.js';
import { negotiateOutput } from '../negotiation.js';
import { printTable, tableFor } from '../registry/index.js';
import type { Obj } from '../object.js';
import type { RestContext } from './context.js';
import { indexFromSelector, parseRV, residualPredicate, selectorPredicate } from './read.js';
import { sharedFrame } from './watch_frames.js';
import { queryBool } from '../query.js';

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** Streams changes of a resource to the client until it leaves, the timeout passes, or the watch breaks. */
export async function handleWatch(ctx: RestContext): Promise<void> {
  const { res, info, resource, services } = ctx;
  const q = info.query;
  const rv = parseRV(q.get('resourceVersion'));
  const bookmarks = queryBool(q, 'allowWatchBookmarks');
  const t = q.get('timeoutSeconds');
  const min = services.minRequestTimeoutSeconds;
  // Like kube-apiserver: an unset timeout is randomized in [min, 2*min) so clients do not reconnect in lock-step.
  const timeoutSeconds = t === null || t === '' ? min * (1 + Math.random()) : Number(t);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds < 0) throw badRequest(`invalid timeoutSeconds: ${t}`);
  const predicate = selectorPredicate(ctx);
  const out = negotiateOutput(ctx.req, q);
  const printer = ctx.printer ?? tableFor(resource);
  const gv = groupVersionString(resource.group, resource.version);
  let headersSent = false;
  let closed = false;
  res.on('close', () => (closed = true));

  const write = async (line: string | Buffer): Promise<void> => {
    if (closed) return;
    if (!res.write(line))
      await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
  };
  const frame = async (type: EventType, obj: Obj | null): Promise<void> => {
    if (out.table && (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED') && obj !== null) {
      // Column definitions go with the first event only, as upstream's watch of Tables does.
      const table = printTable(printer, [obj], {
        now: services.clock.now(),
        includeObject: out.includeObject,
        noHeaders: headersSent,
      });
      headersSent = true;
      await write(`{"type":"${type}","object":${JSON.stringify(table)}}\n`);
      return;
    }
    await write(`{"type":"${type}","object":${JSON.stringify(obj)}}\n`);
  };
  const bookmark = (revision: number): Promise<void> =>
    frame('BOOKMARK', { kind: resource.kind, apiVersion: gv, metadata: { resourceVersion: String(revision) } });

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
  const stop = (): void => w.stop();
  res.on('close', stop);
  services.openWatches.add(stop);
  // Node fires timers longer than 2^31-1 ms after 1 ms instead: cap a huge timeoutSeconds at about 24 days.
  const timer = services.clock.setTimeout(stop, Math.min(timeoutSeconds * 1000, 2 ** 31 - 1));
  try {
    for await (const ev of w) {
      if (closed) break;
      if (ev.type === 'BOOKMARK') {
        await bookmark(ev.revision);
        continue;
      }
      const o = ev.object!;
      if (out.table) await frame(ev.type, o.decode() as Obj);
      else await write(sharedFrame(ev.type, o));
    }
  } catch (err) {
    if (isStorageError(err, 'Expired')) await frame('ERROR', expiredStatus(err.message).status as unknown as Obj);
    else if (isStorageError(err, 'TooLargeResourceVersion'))
      await frame('ERROR', timeoutStatus(err.message, 1).status as unknown as Obj);
    else if (!isStorageError(err, 'TooSlow') && !closed) {
      await frame('ERROR', {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: (err as Error).message,
        reason: 'InternalError',
        code: 500,
      });
    }
    // TooSlow: end the stream; the client re-watches.
  } finally {
    timer.cancel();
    services.openWatches.delete(stop);
    res.off('close', stop);
    w.stop();
    if (!closed) res.end();
  }
}
