import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../../clock/index.js';
import type { GenericStore } from '../registry/store.js';
import type { Attributes } from './chain.js';
import { NamespaceObjectCache } from './namespace_cache.js';
import { growth, resourceQuotaAdmission } from './resource_quota.js';

const podCreate = (name: string): Attributes => ({
  operation: 'CREATE',
  resource: 'pods',
  subresource: '',
  namespace: 'ns',
  name,
  object: { metadata: { name, namespace: 'ns' }, spec: { containers: [{ name: 'c' }] } },
  oldObject: null,
  dryRun: false,
});

test('a quota whose status.hard the controller has not filled limits nothing, as upstream (no "status unknown")', async () => {
  const quotas = new NamespaceObjectCache();
  quotas.put({ metadata: { name: 'q', namespace: 'ns' }, spec: { hard: { pods: '0' } } });
  const noStore = (): GenericStore => {
    throw new Error('an unsynced quota is never charged');
  };
  const plugin = resourceQuotaAdmission(quotas, noStore, new FakeClock());
  await plugin.validate!(podCreate('a'));
  // Once synced, the same quota refuses with upstream's text, from the cache, before any write.
  quotas.put({
    metadata: { name: 'q', namespace: 'ns' },
    spec: { hard: { pods: '0' } },
    status: { hard: { pods: '0' }, used: { pods: '0' } },
  });
  await assert.rejects(
    async () => plugin.validate!(podCreate('b')),
    /exceeded quota: q, requested: pods=1, used: pods=0, limited: pods=0/,
  );
  // A synced quota that has no usage yet for a limited resource is still "status unknown".
  quotas.put({ metadata: { name: 'q', namespace: 'ns' }, status: { hard: { pods: '5' }, used: {} } });
  await assert.rejects(async () => plugin.validate!(podCreate('c')), /status unknown for quota: q, resources: pods/);
});

test('an update is charged only what grew: the non-negative delta, zeros dropped', () => {
  const now = new Map([
    ['requests.storage', 2000],
    ['persistentvolumeclaims', 1000],
    ['services.nodeports', 0],
  ]);
  const before = new Map([
    ['requests.storage', 1000],
    ['persistentvolumeclaims', 1000],
  ]);
  assert.deepEqual([...growth(now, before)], [['requests.storage', 1000]]);
  assert.deepEqual([...growth(before, now)], []);
});
