/**
 * kscale's side of the etcd partition test, run inside the client namespace of an EtcdNetnsCluster
 * (`ip netns exec <client> node ha_etcd_partition_probe.js <url,url,url> <p>`): kscale's etcd storage over
 * every member with a watch cache on it, and a store over member p alone with a watch on it. It prints
 * `{"ready":true}`, and on the line `partitioned` from stdin (the test has cut member p off its peers) runs
 * for PHASE_MS: writes through the store over every member, reads of a key written after the partition
 * through the store over member p, and consistent lists through the watch cache. It prints what it saw,
 * then on `healed` waits for member p to serve the key's latest value again and prints that.
 */
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { Etcd3Storage } from '../../src/storage/etcd3/index.js';
import { Cacher } from '../../src/storage/cacher/index.js';

const PHASE_MS = 8_000;
const P = '/registry/configmaps/default/';

/** What the probe saw while member p was partitioned. */
export interface PartitionReport {
  /** From the partition to the end of the watch on member p (null: it never ended). */
  watchEndedMs: number | null;
  watchError: string;
  /** Events the watch on member p delivered after the partition. */
  watchEventsAfter: number;
  writesAcked: number;
  /** The longest time between two acknowledged writes (or from the partition to the first). */
  maxWriteGapMs: number;
  /** Reads through member p: the value written before the partition (stale), the newer one, or an error. */
  staleReads: number;
  freshReads: number;
  failedReads: number;
  /** The longest read through member p, from call to answer or error. */
  maxReadMs: number;
  /** Acknowledged writes a consistent list through the watch cache did not hold. */
  cacheListMissing: number;
  cacheLists: number;
  /** The longest time from a write's acknowledgement until the watch cache's revision reached it. */
  maxCacheLagMs: number;
}

async function main(): Promise<void> {
  const urls = process.argv[2]!.split(',');
  const p = Number(process.argv[3]);
  const all = new Etcd3Storage({ servers: urls });
  const onlyP = new Etcd3Storage({ servers: [urls[p]!] });
  const cacher = new Cacher({ storage: all, resourcePrefix: '/registry/configmaps/' });
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  const nextLine = async (): Promise<string> => {
    const r = await lines.next();
    if (r.done === true) throw new Error('stdin closed');
    return String(r.value);
  };
  const stale = Buffer.from('{"v":"before"}');
  const fresh = Buffer.from('{"v":"after"}');
  const first = await all.create(`${P}probe-${process.pid}`, stale);
  await cacher.ready();
  const watch = onlyP.watch(P, { fromRevision: first.modRevision });
  console.log(JSON.stringify({ ready: true }));

  if ((await nextLine()) !== 'partitioned') throw new Error('expected "partitioned"');
  const t0 = performance.now();
  const end = t0 + PHASE_MS;
  const r: PartitionReport = {
    watchEndedMs: null,
    watchError: '',
    watchEventsAfter: 0,
    writesAcked: 0,
    maxWriteGapMs: 0,
    staleReads: 0,
    freshReads: 0,
    failedReads: 0,
    maxReadMs: 0,
    cacheListMissing: 0,
    cacheLists: 0,
    maxCacheLagMs: 0,
  };
  const watching = (async () => {
    try {
      for await (const ev of watch) if (ev.type !== 'progress') r.watchEventsAfter++;
      r.watchError = 'ended without an error';
    } catch (err) {
      r.watchError = err instanceof Error ? err.message : String(err);
    }
    r.watchEndedMs = performance.now() - t0;
  })();
  await all.guaranteedUpdate(`${P}probe-${process.pid}`, () => ({ value: fresh }));
  const acked: { key: string; revision: number; at: number }[] = [];
  const writing = (async () => {
    let last = t0;
    for (let i = 0; performance.now() < end; i++) {
      try {
        const kv = await all.create(`${P}w-${process.pid}-${i}`, Buffer.from(`{"i":${i}}`));
        const now = performance.now();
        r.maxWriteGapMs = Math.max(r.maxWriteGapMs, now - last);
        last = now;
        acked.push({ key: kv.key, revision: kv.modRevision, at: now });
        r.writesAcked++;
      } catch {
        // Counted by the gap to the next acknowledged write.
      }
      await new Promise((res) => setTimeout(res, 50));
    }
  })();
  const reading = (async () => {
    while (performance.now() < end) {
      const started = performance.now();
      try {
        const kv = await onlyP.get(`${P}probe-${process.pid}`);
        if (kv.value.equals(stale)) r.staleReads++;
        else r.freshReads++;
      } catch {
        r.failedReads++;
      }
      r.maxReadMs = Math.max(r.maxReadMs, performance.now() - started);
      await new Promise((res) => setTimeout(res, 200));
    }
  })();
  const caching = (async () => {
    let seen = 0;
    while (performance.now() < end) {
      const rev = cacher.metrics().resourceVersion;
      const now = performance.now();
      for (; seen < acked.length && acked[seen]!.revision <= rev; seen++)
        r.maxCacheLagMs = Math.max(r.maxCacheLagMs, now - acked[seen]!.at);
      if (seen < acked.length) r.maxCacheLagMs = Math.max(r.maxCacheLagMs, now - acked[seen]!.at);
      if (r.cacheLists < 10 && now - t0 > r.cacheLists * 700) {
        const want = acked.map((a) => a.key);
        const listed = new Set((await cacher.list(P)).items.map((kv) => kv.key));
        r.cacheListMissing += want.filter((k) => !listed.has(k)).length;
        r.cacheLists++;
      }
      await new Promise((res) => setTimeout(res, 50));
    }
  })();
  await Promise.all([writing, reading, caching]);
  watch.stop();
  await watching;
  console.log(JSON.stringify(r));

  if ((await nextLine()) !== 'healed') throw new Error('expected "healed"');
  const h0 = performance.now();
  let caughtUpMs: number | null = null;
  for (let i = 0; i < 300 && caughtUpMs === null; i++) {
    try {
      if ((await onlyP.get(`${P}probe-${process.pid}`)).value.equals(fresh)) caughtUpMs = performance.now() - h0;
    } catch {
      // Not yet.
    }
    if (caughtUpMs === null) await new Promise((res) => setTimeout(res, 100));
  }
  console.log(JSON.stringify({ caughtUpMs }));
  await cacher.close();
  await onlyP.close();
  await all.close();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
