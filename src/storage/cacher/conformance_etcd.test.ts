/**
 * The storage conformance suite, unchanged, against the cacher over a real
 * etcd 3.4: no reliable progress on request there, so consistent lists wait
 * for etcd's quorum revision (or learn from it that the resource has not
 * changed); RV-0 reads, exact reads inside the window and watches use the cache.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { Etcd3Storage } from '../etcd3/index.js';
import { startEtcd, type EtcdProcess } from '../testing/etcd_process.js';
import { cachedObjects, runObjectConformance } from '../testing/object_tests.js';
import { runConformance } from '../testing/store_tests.js';
import { Cacher, CacherRegistry } from './index.js';

let etcd: EtcdProcess;
let registry: CacherRegistry;
const cachers: Cacher[] = [];
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

before(async () => {
  etcd = await startEtcd({ progressNotifyIntervalMs: 1000 });
  registry = new CacherRegistry({
    storage: new Etcd3Storage({ servers: [etcd.clientUrl] }),
    cacheUnknownPrefixes: true,
  });
});

after(async () => {
  const m = registry.metrics();
  const sum = (k: 'listTotal' | 'eventsDispatched'): number => m.reduce((a, x) => a + x[k], 0);
  process.stdout.write(`# cacher over etcd: lists ${sum('listTotal')}, events dispatched ${sum('eventsDispatched')}\n`);
  assert.ok(sum('listTotal') > 0 && sum('eventsDispatched') > 0, 'reads and watches were served from the cache');
  for (const c of cachers) await c.close();
  await registry?.close();
  await etcd?.stop();
});

runConformance('cacher over etcd3', () => ({
  open: async () => registry,
  advance: sleep,
  progressIntervalMs: etcd.progressNotifyIntervalMs,
}));

runObjectConformance('cacher over etcd3', () => cachedObjects(registry.storage, cachers));
