import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../api/index.js';
import { Lister } from './listers.js';
import {
  byNamespace,
  DeletedFinalStateUnknown,
  Indexer,
  metaNamespaceKeyFunc,
  NAMESPACE_INDEX,
  splitMetaNamespaceKey,
} from './store.js';

const pod = (ns: string, name: string, node: string, labels: Record<string, string> = {}): KubeObject => ({
  kind: 'Pod',
  metadata: { namespace: ns, name, labels },
  spec: { nodeName: node },
});
const byNode = (o: KubeObject): string[] => [String((o.spec as { nodeName?: string }).nodeName ?? '')];

test('keys are namespace/name, or name when cluster-scoped', () => {
  assert.equal(metaNamespaceKeyFunc(pod('default', 'a', 'n1')), 'default/a');
  assert.equal(metaNamespaceKeyFunc({ metadata: { name: 'node-1' } }), 'node-1');
  assert.equal(metaNamespaceKeyFunc(new DeletedFinalStateUnknown('ns/x', {})), 'ns/x');
  assert.deepEqual(splitMetaNamespaceKey('ns/x'), { namespace: 'ns', name: 'x' });
  assert.deepEqual(splitMetaNamespaceKey('node-1'), { namespace: '', name: 'node-1' });
});

test('indexes follow adds, updates and deletes', () => {
  const ix = new Indexer({ [NAMESPACE_INDEX]: byNamespace, node: byNode });
  ix.add(pod('a', 'p1', 'n1'));
  ix.add(pod('a', 'p2', 'n2'));
  ix.add(pod('b', 'p3', 'n1'));
  assert.deepEqual(ix.byIndex('node', 'n1').map(metaNamespaceKeyFunc).sort(), ['a/p1', 'b/p3']);
  ix.update(pod('a', 'p1', 'n2'));
  assert.deepEqual(ix.indexKeys('node', 'n1'), ['b/p3']);
  assert.deepEqual(ix.indexKeys('node', 'n2').sort(), ['a/p1', 'a/p2']);
  ix.delete(pod('b', 'p3', 'n1'));
  assert.deepEqual(ix.listIndexFuncValues('node'), ['n2'], 'empty index values are dropped');
  assert.deepEqual(ix.byIndex(NAMESPACE_INDEX, 'a').length, 2);
  assert.equal(ix.index('node', pod('x', 'y', 'n2')).length, 2);
  assert.throws(() => ix.byIndex('missing', 'x'), /does not exist/);
});

test('an indexer added later indexes existing objects; replace rebuilds indexes', () => {
  const ix = new Indexer();
  ix.add(pod('a', 'p1', 'n1'));
  ix.addIndexers({ node: byNode });
  assert.equal(ix.byIndex('node', 'n1').length, 1);
  ix.replace([pod('a', 'p9', 'n9')]);
  assert.equal(ix.byIndex('node', 'n1').length, 0);
  assert.equal(ix.byIndex('node', 'n9').length, 1);
  assert.deepEqual(ix.listKeys(), ['a/p9']);
});

test('listers filter by namespace and label selector', () => {
  const ix = new Indexer({ [NAMESPACE_INDEX]: byNamespace });
  ix.add(pod('a', 'web-1', 'n1', { app: 'web' }));
  ix.add(pod('a', 'db-1', 'n1', { app: 'db' }));
  ix.add(pod('b', 'web-2', 'n1', { app: 'web' }));
  const l = new Lister(ix);
  assert.equal(l.list().length, 3);
  assert.equal(l.list('app=web').length, 2);
  assert.equal(l.namespace('a').list('app!=web').length, 1);
  assert.equal(l.namespace('a').get('web-1')?.metadata?.name, 'web-1');
  assert.equal(l.namespace('b').get('web-1'), undefined);
  assert.equal(l.get('b/web-2')?.metadata?.name, 'web-2');
  assert.equal(new Lister(new Indexer()).namespace('a').list().length, 0);
});

test('an update filed under the same index values keeps them; a changed one moves; countByIndex counts', () => {
  const ix = new Indexer({ [NAMESPACE_INDEX]: byNamespace, node: byNode });
  ix.add(pod('a', 'p1', 'n1', { v: '1' }));
  ix.add(pod('a', 'p2', 'n1'));
  ix.update(pod('a', 'p1', 'n1', { v: '2' }));
  assert.deepEqual(ix.indexKeys('node', 'n1'), ['a/p1', 'a/p2'], 'same values: the entry stays where it was');
  assert.equal(ix.byIndex('node', 'n1')[0]!.metadata!.labels!.v, '2', 'the index serves the new object');
  assert.equal(ix.countByIndex('node', 'n1'), 2);
  ix.update(pod('a', 'p1', 'n3'));
  assert.deepEqual(ix.indexKeys('node', 'n1'), ['a/p2']);
  assert.equal(ix.countByIndex('node', 'n3'), 1);
  assert.equal(ix.countByIndex('node', 'nope'), 0);
  assert.throws(() => ix.countByIndex('missing', 'x'), /does not exist/);
});
