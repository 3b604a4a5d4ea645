import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../api/index.js';
import { RESTClient } from '../rest/client.js';
import { RESOURCES } from '../rest/resources.js';
import { SharedInformerFactory } from './factory.js';

// Nothing here lists or watches: the client points nowhere and no informer is started.
const factory = (): SharedInformerFactory => new SharedInformerFactory(new RESTClient({ host: 'http://127.0.0.1:1' }));

test('informerFor shares one informer per resource and scope', () => {
  const f = factory();
  const pods = f.informerFor(RESOURCES.pods);
  assert.equal(f.informerFor(RESOURCES.pods), pods);
  assert.notEqual(f.informerFor(RESOURCES.nodes), pods);
  const active = f.informerFor(RESOURCES.pods, { fieldSelector: 'status.phase!=Succeeded' });
  assert.notEqual(active, pods);
  assert.equal(f.informerFor(RESOURCES.pods, { fieldSelector: 'status.phase!=Succeeded' }), active);
  assert.notEqual(f.informerFor(RESOURCES.pods, { namespace: 'a' }), f.informerFor(RESOURCES.pods, { namespace: 'b' }));
});

test('ensureIndex adds an index once, so two users can ask for the same one', () => {
  const inf = factory().informerFor<KubeObject>(RESOURCES.pods);
  const byNode = (o: KubeObject): string[] => [String((o as { spec?: { nodeName?: string } }).spec?.nodeName ?? '')];
  SharedInformerFactory.ensureIndex(inf, 'spec.nodeName', byNode);
  SharedInformerFactory.ensureIndex(inf, 'spec.nodeName', () => ['other']);
  assert.equal(inf.indexer.getIndexers()['spec.nodeName'], byNode);
});

test('waitForCacheSync and shutdown of a factory with nothing started return at once', async () => {
  const f = factory();
  assert.equal(await f.waitForCacheSync(), true);
  await f.shutdown();
});
