import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { RESOURCES } from '../../api/index.js';
import { FakeClock } from '../../clock/index.js';
import { openSqliteStorage } from '../../storage/sqlite/index.js';
import { openCacher } from '../../storage/cacher/test_helpers.js';
import type { Storage } from '../../storage/index.js';
import type { Attributes } from '../admission/chain.js';
import type { Obj } from '../object.js';
import { definitionFor } from './index.js';
import { IPAllocator, PortAllocator } from './ipallocator.js';
import { GenericStore, type Admission } from './store.js';

const NOW = Date.UTC(2026, 0, 1);

/** Runs `fn` with a fresh sqlite store and a registry store factory over it. */
async function withStores(fn: (storeFor: (resource: string) => GenericStore) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-registry-'));
  const storage: Storage = await openSqliteStorage({ dataDir: dir, clock: new FakeClock() });
  const cfg = {
    eventTTLSeconds: 3600,
    serviceIPs: new IPAllocator('10.96.0.0/24'),
    nodePorts: new PortAllocator('30000-30010'),
  };
  const storeFor = (resource: string): GenericStore => {
    const info = RESOURCES.find((r) => r.resource === resource)!;
    return new GenericStore(info, definitionFor(info).strategy(info, cfg), { storage });
  };
  try {
    await fn(storeFor);
  } finally {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Admission that records what it saw, and refuses what `refuse` says. */
function recorder(refuse: (a: Attributes) => boolean = () => false): Admission & { seen: Attributes[] } {
  const seen: Attributes[] = [];
  return {
    seen,
    run(a) {
      seen.push({ ...a, object: a.object === null ? null : structuredClone(a.object) });
      if (refuse(a)) return Promise.reject(Object.assign(new Error('refused'), { reason: 'Forbidden' }));
      return Promise.resolve();
    },
  };
}

const deployment = (name: string, replicas: number): Obj => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'ns' },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
  },
});

test('create runs metadata, defaults and preparation before admission, validates after it, and stores', async () => {
  await withStores(async (storeFor) => {
    const adm = recorder();
    const { obj, stored } = await storeFor('deployments').create(deployment('web', 2), {
      now: NOW,
      dryRun: false,
      admission: adm,
    });
    assert.equal(adm.seen.length, 1);
    const seen = adm.seen[0];
    assert.equal(seen.operation, 'CREATE');
    assert.equal(seen.namespace, 'ns');
    assert.equal((seen.object!.spec as Obj).revisionHistoryLimit, 10, 'admission sees the defaulted object');
    assert.equal((seen.object!.metadata as Obj).generation, 1);
    assert.ok(stored !== undefined);
    assert.equal((obj.metadata as Obj).resourceVersion, String(stored.modRevision));
    await assert.rejects(storeFor('deployments').create(deployment('bad', -1), { now: NOW, dryRun: false }), {
      reason: 'Invalid',
    });
  });
});

test('a create refused by admission or validation gives back what the strategy allocated', async () => {
  await withStores(async (storeFor) => {
    const ip = '10.96.0.5';
    const svc = (name: string, port: number): Obj => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: 'ns' },
      spec: { clusterIP: ip, ports: [{ port }] },
    });
    const adm = recorder((a) => a.name === 'no');
    await assert.rejects(
      storeFor('services').create(svc('no', 80), { now: NOW, dryRun: false, admission: adm }),
      /refused/,
    );
    await assert.rejects(storeFor('services').create(svc('invalid', 0), { now: NOW, dryRun: false }), {
      reason: 'Invalid',
    });
    const { obj } = await storeFor('services').create(svc('yes', 80), { now: NOW, dryRun: false, admission: adm });
    assert.equal((obj.spec as Obj).clusterIP, ip, 'the failed creates released the address');
    await assert.rejects(
      storeFor('services').create(svc('again', 80), { now: NOW, dryRun: false }),
      /already allocated/,
    );
  });
});

test('update creates a missing object only where the strategy or the caller allows, and never through a subresource', async () => {
  await withStores(async (storeFor) => {
    const lease: Obj = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'l', namespace: 'ns' },
      spec: {},
    };
    const r = await storeFor('leases').update('ns', 'l', () => structuredClone(lease), {
      now: NOW,
      dryRun: false,
      subresource: '',
    });
    assert.equal(r.created, true);
    const cm: Obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } };
    await assert.rejects(
      storeFor('configmaps').update('ns', 'c', () => structuredClone(cm), { now: NOW, dryRun: false, subresource: '' }),
      { reason: 'NotFound' },
    );
    const forced = await storeFor('configmaps').update('ns', 'c', () => structuredClone(cm), {
      now: NOW,
      dryRun: false,
      subresource: '',
      forceAllowCreate: true,
    });
    assert.equal(forced.created, true);
    await assert.rejects(
      storeFor('leases').update('ns', 'x', () => structuredClone(lease), {
        now: NOW,
        dryRun: false,
        subresource: 'status',
      }),
      { reason: 'NotFound' },
    );
  });
});

test('update carries over what it may not change, bumps generation on spec changes, and admits UPDATE with the old object', async () => {
  await withStores(async (storeFor) => {
    const store = storeFor('deployments');
    const { obj: created } = await store.create(deployment('web', 1), { now: NOW, dryRun: false });
    const adm = recorder();
    const { obj } = await store.update(
      'ns',
      'web',
      (cur) => {
        const next = structuredClone(cur!);
        (next.spec as Obj).replicas = 3;
        next.status = { replicas: 99 };
        delete (next.metadata as Obj).uid;
        return next;
      },
      { now: NOW + 1000, dryRun: false, admission: adm, subresource: '' },
    );
    const m = obj.metadata as Obj;
    assert.equal(m.uid, (created.metadata as Obj).uid);
    assert.equal(m.generation, 2);
    assert.deepEqual(obj.status, {}, 'a spec write keeps the old status');
    assert.equal(adm.seen[0].operation, 'UPDATE');
    assert.equal((adm.seen[0].oldObject!.spec as Obj).replicas, 1);
  });
});

test('delete runs admission first, so a refused delete leaves the object', async () => {
  await withStores(async (storeFor) => {
    const store = storeFor('configmaps');
    await store.create(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } },
      { now: NOW, dryRun: false },
    );
    const adm = recorder(() => true);
    await assert.rejects(store.delete('ns', 'c', { now: NOW, dryRun: false, admission: adm }), /refused/);
    assert.equal(adm.seen[0].operation, 'DELETE');
    await store.get('ns', 'c');
    const { deleted } = await store.delete('ns', 'c', { now: NOW, dryRun: false, admission: recorder() });
    assert.equal(deleted, true);
  });
});

test('getCached answers from the watch cache without a storage read, and falls back to storage for what it lacks', async () => {
  const info = RESOURCES.find((r) => r.resource === 'nodes')!;
  const f = await openCacher(info.storagePrefix);
  try {
    let storageGets = 0;
    // The real store, with its single-object reads counted.
    const counted = new Proxy(f.sqlite, {
      get(target, prop, receiver) {
        if (prop === 'get') {
          return (...args: Parameters<Storage['get']>) => {
            storageGets++;
            return target.get(...args);
          };
        }
        const v: unknown = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    }) as Storage;
    const strategy = definitionFor(info).strategy(info, {
      eventTTLSeconds: 3600,
      serviceIPs: new IPAllocator('10.96.0.0/24'),
      nodePorts: new PortAllocator('30000-30010'),
    });
    const nodes = new GenericStore(info, strategy, { storage: counted, objects: f.cacher });
    await nodes.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }, { dryRun: false, now: NOW });
    const before = storageGets;
    // The cache holds n1 once its watch delivers the create; until then the read falls back to storage.
    let cached: Obj | undefined;
    for (let i = 0; i < 200 && cached === undefined; i++) {
      const seen = storageGets;
      const o = await nodes.getCached(undefined, 'n1');
      assert.equal((o.metadata as Obj).name, 'n1');
      if (storageGets === seen) cached = o;
      else await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(cached !== undefined, 'the watch cache never answered');
    const settled = storageGets;
    await nodes.getCached(undefined, 'n1');
    assert.equal(storageGets, settled, 'a cached object is read without storage');
    await nodes.get(undefined, 'n1');
    assert.equal(storageGets, settled + 1, 'get is a quorum read from storage');
    await assert.rejects(nodes.getCached(undefined, 'missing'), (err: { status?: { code?: number } }) => {
      assert.equal(err.status?.code, 404);
      return true;
    });
    assert.ok(storageGets > before);
  } finally {
    await f.close();
  }
});

test('getCachedRef gives the name and uid of the cached version, decoded once per version, and 404 for none', async () => {
  const info = RESOURCES.find((r) => r.resource === 'nodes')!;
  const f = await openCacher(info.storagePrefix);
  try {
    const strategy = definitionFor(info).strategy(info, {
      eventTTLSeconds: 3600,
      serviceIPs: new IPAllocator('10.96.0.0/24'),
      nodePorts: new PortAllocator('30000-30010'),
    });
    const nodes = new GenericStore(info, strategy, { storage: f.sqlite, objects: f.cacher });
    const created = await nodes.create(
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } },
      { dryRun: false, now: NOW },
    );
    const uid = String((created.obj.metadata as Obj).uid);
    let ref = await nodes.getCachedRef(undefined, 'n1');
    for (let i = 0; i < 200 && ref !== (await nodes.getCachedRef(undefined, 'n1')); i++) {
      // Until the watch cache holds n1, each read falls back to storage and decodes anew.
      await new Promise((r) => setTimeout(r, 10));
      ref = await nodes.getCachedRef(undefined, 'n1');
    }
    assert.deepEqual(ref, { name: 'n1', uid });
    assert.equal(await nodes.getCachedRef(undefined, 'n1'), ref, 'one cached version is decoded once');
    assert.ok(Object.isFrozen(ref), 'a shared answer cannot be changed by a caller');
    await nodes.delete(undefined, 'n1', { now: NOW, dryRun: false });
    const again = await nodes.create(
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } },
      { dryRun: false, now: NOW },
    );
    const uid2 = String((again.obj.metadata as Obj).uid);
    assert.notEqual(uid2, uid);
    let now = await nodes.getCachedRef(undefined, 'n1');
    for (let i = 0; i < 200 && now.uid !== uid2; i++) {
      await new Promise((r) => setTimeout(r, 10));
      now = await nodes.getCachedRef(undefined, 'n1');
    }
    assert.deepEqual(now, { name: 'n1', uid: uid2 }, 'a re-created node is read with its new uid');
    await assert.rejects(nodes.getCachedRef(undefined, 'missing'), (err: { status?: { code?: number } }) => {
      assert.equal(err.status?.code, 404);
      return true;
    });
  } finally {
    await f.close();
  }
});
