import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { EncodedObject, jsonCodec } from '../../storage/index.js';
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
  assert.deepEqual(JSON.parse(a.toString()), {
    type: 'MODIFIED',
    object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '42', name: 'p' } },
  });
  const added = sharedFrame('ADDED', o);
  assert.equal(JSON.parse(added.toString()).type, 'ADDED');
  await nextTurn();
  const later = sharedFrame('MODIFIED', o);
  assert.notEqual(later, a);
  assert.deepEqual(later, a);
});

test('a frame splices the resourceVersion into any stored object, and equals the frame of its response bytes', () => {
  for (const json of [
    '{"kind":"Pod","apiVersion":"v1","metadata":{}}',
    '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"é"},"spec":{"x":[1,2]}}',
    '{"kind":"Status"}',
  ]) {
    const o = new EncodedObject('/k', Buffer.from(json), 9_007_199_254_740_991, jsonCodec);
    const frame = sharedFrame('DELETED', o);
    const fromBytes = frameOf('DELETED', new EncodedObject('/k', Buffer.from(json), o.revision, jsonCodec).bytes());
    assert.equal(frame.toString(), fromBytes.toString());
    const parsed = JSON.parse(frame.toString()) as {
      type: string;
      object: { metadata?: { resourceVersion?: string } };
    };
    assert.equal(parsed.type, 'DELETED');
    if (json.includes('metadata')) assert.equal(parsed.object.metadata?.resourceVersion, '9007199254740991');
  }
});
