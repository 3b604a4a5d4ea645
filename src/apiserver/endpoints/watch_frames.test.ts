import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { EncodedObject, jsonCodec } from '../../storage/cacher/index.js';
import { frameOf, sharedFrame } from './watch_frames.js';

const stored = Buffer.from('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"}}');

test('a watch frame is one JSON event line around the object bytes', () => {
  const line = frameOf('MODIFIED', Buffer.from('{"a":1}'));
  assert.equal(line.toString(), '{"type":"MODIFIED","object":{"a":1}}\n');
  assert.deepEqual(JSON.parse(line.toString()), { type: 'MODIFIED', object: { a: 1 } });
});

test('watchers of one event in one turn share its frame; another type or a later turn gets its own', async () => {
  const o = new EncodedObject('/registry/pods/ns/p', stored, 42, jsonCodec);
  const a = sharedFrame('MODIFIED', o);
  assert.equal(sharedFrame('MODIFIED', o), a);
  assert.deepEqual(JSON.parse(a.toString()), { type: 'MODIFIED', object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '42', name: 'p' } } });
  const added = sharedFrame('ADDED', o);
  assert.equal(JSON.parse(added.toString()).type, 'ADDED');
  await nextTurn();
  const later = sharedFrame('MODIFIED', o);
  assert.notEqual(later, a);
  assert.deepEqual(later, a);
});
