/**
 * SharedInformer and Reflector against a real `kscale server`: initial list
 * then watch, selectors, re-watch after the server ends the stream, resume
 * from a bookmark, and relists after 410 (as an ERROR event and as HTTP 410).
 * Waiting here is for a real server process; unit tests use FakeClock.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, type TestServer } from '../../../test/e2e/harness.js';
import { newStatusError, type KubeObject } from '../../api/index.js';
import { RESTClient } from '../rest/client.js';
import { loadKubeconfig } from '../rest/config.js';
import { isResourceExpired } from '../rest/errors.js';
import { RESOURCES } from '../rest/resources.js';
import { listWatchFor, type ListerWatcher } from './listwatch.js';
import { SharedInformer, type ResourceEventHandler } from './shared_informer.js';
import { DeletedFinalStateUnknown } from './store.js';

let server: TestServer;
let client: RESTClient;

before(async () => {
  // Streams close after 2-4 s; compaction every 2 s makes old RVs expire quickly, and keeps the RV of the
  // bookmark a stream ends with valid for at least 2 s, so a re-watch delayed by a loaded machine still
  // resumes (with 1 s a CI run beside other work relisted once).
  // Watches served from storage, so a storage compaction is what expires an informer's RV; with the
  // watch cache an RV stays valid for the cache's window (>= 75 s), whatever storage compacted.
  server = await startServer(['--min-request-timeout', '2', '--etcd-compaction-interval', '2s', '--watch-cache=false']);
  client = new RESTClient(loadKubeconfig({ path: server.kubeconfig }));
});
after(async () => {
  client.close();
  await server.stop();
});

async function eventually(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const cm = (
  ns: string,
  name: string,
  labels: Record<string, string> = {},
  data: Record<string, string> = {},
): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns, labels },
  data,
});

/** Records handler calls as "add:name", "update:name", "delete:name", "tombstone:name". */
function recorder(): { log: string[]; handler: ResourceEventHandler<KubeObject> } {
  const log: string[] = [];
  return {
    log,
    handler: {
      onAdd: (o, initial) => log.push(`${initial ? 'initial' : 'add'}:${o.metadata?.name}`),
      onUpdate: (_o, n) => log.push(`update:${n.metadata?.name}`),
      onDelete: (o) =>
        log.push(
          o instanceof DeletedFinalStateUnknown ? `tombstone:${o.obj.metadata?.name}` : `delete:${o.metadata?.name}`,
        ),
    },
  };
}

async function namespace(name: string): Promise<void> {
  await client.resource(RESOURCES.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

test('initial list, then watch events; label selectors apply to both', async () => {
  await namespace('inf1');
  const cms = client.resource(RESOURCES.configmaps);
  await cms.create(cm('inf1', 'before', { app: 'x' }));
  await cms.create(cm('inf1', 'other', { app: 'y' }));
  const inf = new SharedInformer(listWatchFor(cms, { namespace: 'inf1', labelSelector: 'app=x' }), {
    reflector: { minWatchTimeoutSeconds: 60 },
  });
  const { log, handler } = recorder();
  inf.addEventHandler(handler);
  const run = inf.run();
  try {
    assert.equal(await inf.waitForSync(), true);
    assert.deepEqual(log, ['initial:before']);
    await cms.create(cm('inf1', 'after', { app: 'x' }));
    await cms.create(cm('inf1', 'ignored', { app: 'y' }));
    await cms.patch('before', 'merge', { data: { k: 'v' } }, { namespace: 'inf1' });
    await cms.delete('after', { namespace: 'inf1' });
    await eventually('events', () => log.length >= 4);
    assert.deepEqual(log, ['initial:before', 'add:after', 'update:before', 'delete:after']);
    assert.deepEqual(
      inf
        .lister()
        .namespace('inf1')
        .list()
        .map((o) => o.metadata?.name),
      ['before'],
    );
    assert.equal(inf.lister().namespace('inf1').get('before')?.data !== undefined, true);
    // A handler added after sync is replayed the current state.
    const late = recorder();
    const reg = inf.addEventHandler(late.handler);
    assert.deepEqual(late.log, ['initial:before']);
    assert.equal(reg.hasSynced(), true);
  } finally {
    await run.stop();
  }
});

test('a field selector filters list and watch', async () => {
  const pods = client.resource(RESOURCES.pods);
  const pod = (name: string, node: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { nodeName: node, containers: [{ name: 'c', image: 'i' }] },
  });
  await pods.create(pod('on-a-1', 'node-a'));
  await pods.create(pod('on-b-1', 'node-b'));
  const inf = new SharedInformer(listWatchFor(pods, { fieldSelector: 'spec.nodeName=node-a' }));
  const run = inf.run();
  try {
    await inf.waitForSync();
    await pods.create(pod('on-a-2', 'node-a'));
    await pods.create(pod('on-b-2', 'node-b'));
    await eventually('second pod on node-a', () => inf.indexer.size === 2);
    await sleep(200);
    assert.deepEqual(inf.indexer.listKeys().sort(), ['default/on-a-1', 'default/on-a-2']);
  } finally {
    await run.stop();
  }
});

test('re-watches from the last RV when the server ends the stream, without relisting', async () => {
  // A server without compaction: here an idle watch's RV must stay valid, so any relist would be the client's fault.
  const s = await startServer(['--min-request-timeout', '2']);
  const c = new RESTClient(loadKubeconfig({ path: s.kubeconfig }));
  const cms = c.resource(RESOURCES.configmaps);
  const inf = new SharedInformer(listWatchFor(cms, { namespace: 'default' }), {
    reflector: { minWatchTimeoutSeconds: 1 },
  });
  const { log, handler } = recorder();
  inf.addEventHandler(handler);
  const run = inf.run();
  try {
    await inf.waitForSync();
    await eventually('two re-watches', () => inf.stats.watches >= 3);
    await cms.create(cm('default', 'late'));
    await eventually('event after re-watch', () => log.includes('add:late'));
    assert.equal(inf.stats.lists, 1);
    assert.equal(inf.stats.expired, 0);
  } finally {
    await run.stop();
    c.close();
    await s.stop();
  }
});

test('bookmarks advance the RV, so a re-watch after compaction resumes instead of relisting', async () => {
  await namespace('inf4');
  const cms = client.resource(RESOURCES.configmaps);
  await cms.create(cm('inf4', 'watched', { app: 'x' }));
  const inf = new SharedInformer(listWatchFor(cms, { namespace: 'inf4', labelSelector: 'app=x' }), {
    reflector: { minWatchTimeoutSeconds: 2 },
  });
  const run = inf.run();
  try {
    await inf.waitForSync();
    const synced = Number(inf.lastSyncResourceVersion());
    // Writes this informer never sees as events: only bookmarks tell it the RV moved on.
    let last = 0;
    for (let i = 0; i < 5; i++)
      last = Number((await cms.create(cm('inf4', `unwatched-${i}`, { app: 'y' }))).metadata?.resourceVersion);
    await eventually('a bookmark past the unwatched writes', () => Number(inf.lastSyncResourceVersion()) >= last);
    assert.ok(Number(inf.lastSyncResourceVersion()) > synced);
    // Let compaction pass the list's RV and the stream close a few times: resuming from the bookmark needs no relist.
    await waitForCompactionPast('inf4', String(synced));
    const watches = inf.stats.watches;
    // Keep writing unwatched objects: kscale's bookmarks carry this watch's own last revision, so a quiet
    // namespace with busy neighbours could still be compacted past (a server gap, noted in the client report).
    let i = 0;
    await eventually('re-watches after compaction', async () => {
      await cms.create(cm('inf4', `more-${i++}`, { app: 'y' }));
      return inf.stats.watches >= watches + 2;
    });
    assert.equal(inf.stats.expired, 0);
    assert.equal(inf.stats.lists, 1);
  } finally {
    await run.stop();
  }
});

/** Holds the first watch until `release`, so the test can make its RV expire first. */
function gatedWatch(
  lw: ListerWatcher,
  opts: { httpGone?: boolean } = {},
): { lw: ListerWatcher; release: () => void; listRVs: string[] } {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let first = true;
  const listRVs: string[] = [];
  return {
    release,
    listRVs,
    lw: {
      list: (o) => {
        listRVs.push(o.resourceVersion ?? '<unset>');
        return lw.list(o);
      },
      watch: async (o) => {
        if (first) {
          first = false;
          await gate;
          // The server answers an expired RV with an ERROR event; this is how an HTTP 410 looks to the reflector.
          if (opts.httpGone === true)
            throw newStatusError(410, 'Expired', `too old resource version: ${o.resourceVersion}`);
        }
        return lw.watch(o);
      },
    },
  };
}

/** Writes unwatched objects into `ns` (label app=y) until `rv` is compacted away. */
async function waitForCompactionPast(ns: string, rv: string): Promise<void> {
  const cms = client.resource(RESOURCES.configmaps);
  await eventually(
    `compaction past ${rv}`,
    async () => {
      // Keep the revision moving so each compaction tick has something to compact to. The writes stay in
      // the watched namespace because kscale's end-of-stream bookmark carries the watch's own last revision.
      await cms.create(cm(ns, `tick-${Date.now()}-${Math.random().toString(36).slice(2)}`, { app: 'y' }));
      try {
        const w = await cms.watch({ namespace: 'inf-none', resourceVersion: rv });
        for await (const ev of w) {
          w.stop();
          return ev.type === 'ERROR' && isResourceExpired(newStatusError(ev.object.code, ev.object.reason ?? '', ''));
        }
        return false;
      } catch (e) {
        return isResourceExpired(e);
      }
    },
    20_000,
  );
}

for (const httpGone of [false, true]) {
  test(`relists after 410 ${httpGone ? 'as the HTTP status' : 'as an ERROR event'}, reporting what changed meanwhile`, async () => {
    const ns = httpGone ? 'inf6' : 'inf5';
    await namespace(ns);
    const cms = client.resource(RESOURCES.configmaps);
    await cms.create(cm(ns, 'kept'));
    await cms.create(cm(ns, 'changed'));
    await cms.create(cm(ns, 'removed'));
    const g = gatedWatch(listWatchFor(cms, { namespace: ns }) as ListerWatcher, { httpGone });
    const inf = new SharedInformer(g.lw);
    const { log, handler } = recorder();
    inf.addEventHandler(handler);
    const run = inf.run();
    try {
      await inf.waitForSync();
      const listRV = inf.lastSyncResourceVersion();
      if (!httpGone) await namespace('inf-ticks');
      await cms.patch('changed', 'merge', { data: { k: 'v' } }, { namespace: ns });
      await cms.delete('removed', { namespace: ns });
      await cms.create(cm(ns, 'new'));
      if (!httpGone) await waitForCompactionPast('inf-ticks', listRV);
      g.release();
      await eventually('relist', () => inf.stats.lists >= 2 && log.length >= 6);
      assert.equal(inf.stats.expired, 1);
      assert.deepEqual(g.listRVs.slice(0, 2), ['0', ''], 'the relist after 410 is a consistent read');
      assert.deepEqual(log.slice(3).sort(), ['add:new', 'tombstone:removed', 'update:changed']);
      assert.deepEqual(inf.indexer.listKeys().sort(), [`${ns}/changed`, `${ns}/kept`, `${ns}/new`]);
    } finally {
      await run.stop();
    }
  });
}
