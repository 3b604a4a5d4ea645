/**
 * One etcd watch per Watcher, on its own gRPC stream. We drive the raw Watch
 * RPC instead of the etcd3 client's WatchBuilder because that one re-watches
 * silently after a disconnect and reports compaction without its revision; a
 * Kubernetes watch must instead end (Expired or Unavailable) and let the
 * reflector or cacher re-list, like upstream's etcd3 watcher.
 */
import type { Etcd3, IEvent, IWatchResponse } from 'etcd3';
import { expired, unavailable } from '../errors.js';
import { prefixEnd } from '../continue.js';
import type { WatchEvent, WatchOptions, Watcher } from '../interface.js';
import { WatchChannel } from '../watch_channel.js';
import { mapEtcdError, toKeyValue } from './client.js';

type WatchStream = Awaited<ReturnType<Etcd3['watchClient']['watch']>>;

/** Opens a watch on every key under `prefix`; see WatchOptions for the revision rules. */
export function openWatch(client: Etcd3, prefix: string, opts: WatchOptions, capacity: number): Watcher {
  const from = opts.fromRevision ?? 0;
  let stream: WatchStream | null = null;
  let watchId: string | null = null;

  const ch = new WatchChannel(capacity, () => {
    if (stream === null) return;
    // Cancel, then half-close: etcd ends the RPC with OK. A gRPC cancel() would
    // surface as a "recoverable" error that makes the client reset the host's channels.
    if (watchId !== null) stream.write({ cancel_request: { watch_id: watchId } });
    stream.end();
  });

  const onResponse = (res: IWatchResponse): void => {
    if (ch.closed) return;
    const compacted = Number(res.compact_revision);
    if (compacted > 0) {
      ch.fail(expired(from, compacted));
      return;
    }
    if (res.canceled) {
      ch.fail(unavailable(`etcd canceled the watch on ${prefix}: ${res.cancel_reason || 'no reason given'}`));
      return;
    }
    if (res.created) {
      watchId = res.watch_id;
      return;
    }
    if (res.events.length === 0) {
      // An empty response is a progress notification: nothing changed under the
      // prefix up to the header revision.
      if (opts.progressNotify !== false) ch.push({ type: 'progress', revision: Number(res.header.revision), key: '' });
      return;
    }
    for (const ev of res.events) {
      if (!ch.push(toWatchEvent(ev))) return;
    }
  };

  client.watchClient.watch().then(
    (s) => {
      stream = s;
      if (ch.closed) {
        s.end();
        return;
      }
      s.on('data', onResponse);
      s.on('error', (err: unknown) => ch.fail(mapEtcdError(err)));
      s.on('end', () => ch.fail(unavailable(`etcd watch stream on ${prefix} ended`)));
      s.write({
        create_request: {
          key: Buffer.from(prefix, 'utf8'),
          range_end: Buffer.from(prefixEnd(prefix), 'utf8'),
          // Kubernetes watches are exclusive of R; etcd's start_revision is inclusive.
          ...(from > 0 ? { start_revision: from + 1 } : {}),
          prev_kv: true,
          progress_notify: opts.progressNotify !== false,
        },
      });
    },
    (err: unknown) => ch.fail(mapEtcdError(err)),
  );
  return ch;
}

function toWatchEvent(ev: IEvent): WatchEvent {
  const kv = toKeyValue(ev.kv);
  const prev = ev.prev_kv !== null && ev.prev_kv !== undefined ? toKeyValue(ev.prev_kv) : undefined;
  if (ev.type === 'Delete') {
    // etcd's delete event carries only the key; the deleted value is prev_kv,
    // stamped with the delete's revision, as the contract wants.
    const deleted = prev !== undefined ? { ...prev, modRevision: kv.modRevision } : kv;
    return {
      type: 'delete',
      revision: kv.modRevision,
      key: kv.key,
      kv: deleted,
      ...(prev !== undefined ? { prevKv: prev } : {}),
    };
  }
  return { type: 'put', revision: kv.modRevision, key: kv.key, kv, ...(prev !== undefined ? { prevKv: prev } : {}) };
}
