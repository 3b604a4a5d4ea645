import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FakeClock } from '../../clock/index.js';
import { openSqliteStorage } from '../sqlite/index.js';
import { CacherRegistry, parseWatchCacheSizes } from './cacher_registry.js';
import { pod } from './test_helpers.js';

test('parseWatchCacheSizes reads upstream syntax and refuses malformed entries', () => {
  assert.deepEqual(
    [...parseWatchCacheSizes('pods#0, deployments.apps#100,')],
    [
      ['pods', 0],
      ['deployments.apps', 100],
    ],
  );
  assert.throws(() => parseWatchCacheSizes('pods'), /invalid value of watch cache size/);
  assert.throws(() => parseWatchCacheSizes('pods#x'), /invalid value of watch cache size/);
});

test('the registry routes each resource to its cacher, and resource#0 to storage', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-cacher-'));
  const clock = new FakeClock();
  const storage = await openSqliteStorage({ dataDir: dir, clock });
  const reg = new CacherRegistry({
    storage,
    resources: [
      { prefix: '/registry/pods/' },
      { prefix: '/registry/events/' },
      { prefix: '/registry/apps/deployments/', resource: 'deployments.apps' },
    ],
    watchCacheSizes: parseWatchCacheSizes('events#0'),
    defaults: { clock },
  });
  try {
    await reg.ready();
    assert.equal(reg.cacherFor('/registry/pods/ns/a')?.resource, 'pods');
    assert.equal(reg.cacherFor('/registry/apps/deployments/ns/')?.resource, 'deployments.apps');
    assert.equal(reg.cacherFor('/registry/events/ns/e'), undefined, 'events#0 is not cached');
    assert.equal(reg.cacherFor('/registry/nodes/n1'), undefined, 'unconfigured resources are not cached');
    assert.equal(reg.cacherFor('/registry/'), undefined);
    await reg.create('/registry/pods/ns/a', pod('a', { ns: 'ns' }));
    await reg.create('/registry/events/ns/e', pod('e', { ns: 'ns' }));
    assert.equal((await reg.list('/registry/pods/ns/')).items.length, 1);
    assert.equal((await reg.list('/registry/events/')).items.length, 1);
    assert.deepEqual(
      reg.metrics().map((m) => [m.resource, m.listTotal]),
      [
        ['pods', 1],
        ['deployments.apps', 0],
      ],
    );
  } finally {
    await reg.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('events are served from storage by default, as upstream, and cached once given a size', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-cacher-'));
  const clock = new FakeClock();
  const storage = await openSqliteStorage({ dataDir: dir, clock });
  const resources = [
    { prefix: '/registry/pods/' },
    { prefix: '/registry/events/', resource: 'events' },
    { prefix: '/registry/events/', resource: 'events.events.k8s.io' },
  ];
  const plain = new CacherRegistry({ storage, resources, defaults: { clock } });
  const sized = new CacherRegistry({
    storage,
    resources,
    watchCacheSizes: parseWatchCacheSizes('events#100,events.events.k8s.io#100'),
    defaults: { clock },
  });
  try {
    await plain.ready();
    await sized.ready();
    assert.equal(plain.cacherFor('/registry/pods/ns/a')?.resource, 'pods');
    assert.equal(plain.cacherFor('/registry/events/ns/e'), undefined, 'Events are not cached by default');
    assert.deepEqual(
      plain.metrics().map((m) => m.resource),
      ['pods'],
    );
    await plain.create('/registry/events/ns/e', pod('e', { ns: 'ns' }));
    assert.equal((await plain.list('/registry/events/')).items.length, 1, 'and are read from storage');
    assert.ok(sized.cacherFor('/registry/events/ns/e') !== undefined, 'a size in --watch-cache-sizes caches them');
    assert.equal((await sized.list('/registry/events/')).items.length, 1);
  } finally {
    await plain.close();
    await sized.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
