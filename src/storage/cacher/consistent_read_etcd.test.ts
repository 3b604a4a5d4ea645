/**
 * Consistent reads from the watch cache over etcd 3.4, whose progress on
 * request is unreliable: a list first reads etcd's revision with a quorum
 * read, then is served from the cache once the cache has reached it, or at
 * once when that read shows the resource unchanged since the cache's revision.
 * Writes come through another client, as from another API server.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Etcd3Storage } from '../etcd3/index.js';
import { startEtcd, type EtcdProcess } from '../testing/etcd_process.js';
import { Cacher } from './index.js';
import { pod } from './test_helpers.js';

const P = '/registry/pods/';
let etcd: EtcdProcess;
before(async () => {
  // Progress notifications every 10 min, etcd's default: the cache cannot count on them.
  etcd = await startEtcd({ progressNotifyIntervalMs: 600_000 });
});
after(async () => {
  await etcd.stop();
});

test('over etcd, a list after a write made elsewhere sees it, served from the cache', async () => {
  const mine = new Etcd3Storage({ servers: [etcd.clientUrl] });
  const other = new Etcd3Storage({ servers: [etcd.clientUrl] });
  const cacher = new Cacher({ storage: mine, resourcePrefix: P });
  try {
    await cacher.ready();
    assert.equal(cacher.consistentReadsFromCache, true);
    for (let i = 0; i < 60; i++) {
      const written = await other.create(`${P}default/p${i}`, pod(`p${i}`));
      // Writes to other resources move etcd's revision past the pods cache's.
      const elsewhere = await other.create(`/registry/configmaps/default/c${i}`, pod(`c${i}`));
      const listed = await cacher.list(P);
      assert.ok(
        listed.items.some((kv) => kv.key === written.key),
        `round ${i}: the write is listed`,
      );
      assert.equal(listed.items.length, i + 1);
      assert.ok(listed.revision >= elsewhere.modRevision, `round ${i}: listed at ${listed.revision}`);
    }
    // A delete made elsewhere is seen too (the cache count and etcd's differ until its event arrives).
    await other.delete(`${P}default/p0`);
    assert.ok(!(await cacher.list(P)).items.some((kv) => kv.key === `${P}default/p0`));
    assert.equal(cacher.metrics().storageReads, 0, 'every consistent list was served from the cache');
  } finally {
    await cacher.close();
    await mine.close();
    await other.close();
  }
});
