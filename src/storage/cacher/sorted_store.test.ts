import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CachedObject, jsonCodec } from './cached_object.js';
import { SortedStore } from './sorted_store.js';

const P = '/registry/pods/';

/** A pod entry at `rev` on node `node`, indexed by spec.nodeName then metadata.name. */
function entry(ns: string, name: string, node: string, rev: number): CachedObject {
  const key = `${P}${ns}/${name}`;
  return new CachedObject({ key, value: Buffer.from('{}'), createRevision: rev, modRevision: rev }, ns, [node, name], jsonCodec);
}

const keys = (os: CachedObject[]): string[] => os.map((o) => o.key);

test('an index value held by one, then two, then one entry again answers byIndex in key order throughout', () => {
  const s = new SortedStore(['spec.nodeName', 'metadata.name']);
  s.put(entry('b', 'web', 'n1', 1));
  assert.deepEqual(keys(s.byIndex('metadata.name', 'web')), [`${P}b/web`]);
  s.put(entry('a', 'web', 'n2', 2));
  assert.deepEqual(keys(s.byIndex('metadata.name', 'web')), [`${P}a/web`, `${P}b/web`], 'two holders, sorted by key');
  s.put(entry('c', 'web', 'n1', 3));
  assert.deepEqual(keys(s.byIndex('spec.nodeName', 'n1')), [`${P}b/web`, `${P}c/web`]);
  assert.equal(s.delete(`${P}b/web`)?.revision, 1);
  assert.deepEqual(keys(s.byIndex('metadata.name', 'web')), [`${P}a/web`, `${P}c/web`]);
  s.delete(`${P}a/web`);
  assert.deepEqual(keys(s.byIndex('metadata.name', 'web')), [`${P}c/web`], 'back to a single holder');
  assert.deepEqual(keys(s.byIndex('spec.nodeName', 'n2')), [], 'an emptied value is gone');
  s.delete(`${P}c/web`);
  assert.deepEqual(keys(s.byIndex('metadata.name', 'web')), []);
  assert.equal(s.size, 0);
});

test('replacing an entry moves it between index values, and a re-put of the same value keeps one holder', () => {
  const s = new SortedStore(['spec.nodeName', 'metadata.name']);
  s.put(entry('a', 'p', '', 1));
  s.put(entry('a', 'q', '', 2));
  assert.deepEqual(keys(s.byIndex('spec.nodeName', '')), [`${P}a/p`, `${P}a/q`]);
  s.put(entry('a', 'p', 'n1', 3)); // bound to n1
  assert.deepEqual(keys(s.byIndex('spec.nodeName', '')), [`${P}a/q`]);
  assert.deepEqual(keys(s.byIndex('spec.nodeName', 'n1')), [`${P}a/p`]);
  s.put(entry('a', 'p', 'n1', 4)); // a status write: same node
  const held = s.byIndex('spec.nodeName', 'n1');
  assert.deepEqual(keys(held), [`${P}a/p`]);
  assert.equal(held[0]!.revision, 4, 'the index holds the newest entry');
  assert.equal(s.get(`${P}a/p`)?.kv.modRevision, 4);
  assert.equal(s.get(`${P}a/p`)?.kv.createRevision, 4);
});
