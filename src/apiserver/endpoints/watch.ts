/**
 * WATCH: one compact JSON WatchEvent per line, headers flushed at once,
 * selectors applied to both the new and the previous object (an object that
 * stops matching is sent as DELETED, one that starts matching as ADDED, like
 * upstream's watchers), bookmarks only when asked, 410 as an ERROR event
 * followed by a clean close, and a server-side timeout.
 */
import { printTable } from '../../api/printers/index.js';
import { groupVersionString, storageListPrefix } from '../../api/registry.js';
import { badRequest, expired as expiredStatus } from '../../api/status.js';
import { isStorageError, type KeyValue, type WatchEvent } from '../../storage/index.js';
import { decode, withResourceVersion } from '../codec.js';
import { negotiateOutput } from '../negotiation.js';
import type { Obj } from '../object.js';
import { watchFromCache } from './cached_watch.js';
import type { RestContext } from './context.js';
import { parseRV, selectorPredicate } from './read.js';
import { frameOf } from './watch_frames.js';
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
  const storage = services.storageFor(resource.resource);
  const prefix = storageListPrefix(resource, resource.namespaced && info.namespace !== '' ? info.namespace : undefined);
  const gv = groupVersionString(resource.group, resource.version);
  let headersSent = false;
  let closed = false;
  res.on('close', () => (closed = true));

  const write = async (line: string | Buffer): Promise<void> => {
    if (closed) return;
    if (!res.write(line)) await new Promise<void>((resolve) => {
      const done = (): void => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  };
  const frame = async (type: EventType, obj: Obj | null, bytes?: Buffer): Promise<void> => {
    if (out.table && (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED') && obj !== null) {
      // Column definitions go with the first event only, as upstream's watch of Tables does.
      const table = printTable(resource.resource, [obj], { now: services.clock.now(), includeObject: out.includeObject, noHeaders: headersSent });
      headersSent = true;
      await write(`{"type":"${type}","object":${JSON.stringify(table)}}\n`);
      return;
    }
    if (bytes !== undefined && type !== 'BOOKMARK' && type !== 'ERROR') await write(frameOf(type, bytes));
    else await write(`{"type":"${type}","object":${JSON.stringify(obj)}}\n`);
  };
  const bookmark = (revision: number): Promise<void> =>
    frame('BOOKMARK', { kind: resource.kind, apiVersion: gv, metadata: { resourceVersion: String(revision) } });

  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  if (ctx.store.cacher !== undefined) {
    await watchFromCache(ctx, ctx.store.cacher, ctx.store.cacheIndexes, { rv, bookmarks, timeoutMs: timeoutSeconds * 1000, predicate }, {
      frame, line: write, bookmark, closed: () => closed, table: out.table,
    });
    return;
  }

  let from = rv ?? 0;
  let lastRev = from;
  try {
    if (rv === undefined || rv === 0) {
      // No (or "0") resourceVersion: synthetic ADDED events for the current state, then changes after it.
      const page = await ctx.store.list({ namespace: info.namespace, ...(predicate === undefined ? {} : { predicate }) });
      for (const it of page.items) {
        if (closed) break;
        await frame('ADDED', it.obj, out.table ? undefined : withResourceVersion(it.kv.value, it.kv.modRevision));
      }
      from = page.revision;
      lastRev = from;
    }
  } catch (err) {
    res.destroy(err as Error);
    return;
  }
  const w = storage.watch(prefix, { fromRevision: from, progressNotify: bookmarks });
  const stop = (): void => w.stop();
  res.on('close', stop);
  services.openWatches.add(stop);
  // Node fires timers longer than 2^31-1 ms after 1 ms instead: cap a huge timeoutSeconds at about 24 days.
  const timer = services.clock.setTimeout(stop, Math.min(timeoutSeconds * 1000, 2 ** 31 - 1));
  try {
    for await (const ev of w) {
      if (closed) break;
      if (ev.type === 'progress') {
        if (bookmarks && ev.revision > lastRev) {
          lastRev = ev.revision;
          await bookmark(ev.revision);
        }
        continue;
      }
      lastRev = ev.revision;
      await sendEvent(ev, predicate, frame, out.table);
    }
    if (!closed && bookmarks && lastRev > 0) await bookmark(lastRev);
  } catch (err) {
    if (isStorageError(err, 'Expired')) {
      await frame('ERROR', expiredStatus(err.message).status);
    } else if (!closed) {
      await frame('ERROR', { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: (err as Error).message, reason: 'InternalError', code: 500 });
    }
  } finally {
    timer.cancel();
    services.openWatches.delete(stop);
    res.off('close', stop);
    if (!closed) res.end();
  }
}

/** Translates one storage event into ADDED/MODIFIED/DELETED for this watcher's selectors. */
async function sendEvent(
  ev: WatchEvent,
  predicate: ((o: Obj) => boolean) | undefined,
  frame: (type: EventType, obj: Obj | null, bytes?: Buffer) => Promise<void>,
  table: boolean,
): Promise<void> {
  const bytesOf = (kv: KeyValue): Buffer | undefined => (table ? undefined : withResourceVersion(kv.value, ev.revision));
  if (ev.type === 'delete') {
    const prev = ev.prevKv ?? ev.kv!;
    const obj = decodeAt(prev, ev.revision);
    if (predicate === undefined || predicate(obj)) await frame('DELETED', obj, bytesOf(prev));
    return;
  }
  const kv = ev.kv!;
  const needObj = predicate !== undefined || table;
  const obj = needObj ? decode(kv) : null;
  const cur = predicate === undefined || predicate(obj!);
  if (ev.prevKv === undefined) {
    if (cur) await frame('ADDED', obj, bytesOf(kv));
    return;
  }
  const old = predicate === undefined || predicate(decode(ev.prevKv));
  if (cur && old) await frame('MODIFIED', obj, bytesOf(kv));
  else if (cur) await frame('ADDED', obj, bytesOf(kv));
  else if (old) await frame('DELETED', decodeAt(ev.prevKv, ev.revision), bytesOf(ev.prevKv));
}

function decodeAt(kv: KeyValue, revision: number): Obj {
  return decode({ ...kv, modRevision: revision });
}
