import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EncodedObject, jsonCodec } from '../../storage/index.js';
import { sharedFrame } from './watch_frames.js';

const stored = Buffer.from('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"}}');

/** A frame's bytes as the socket gets them (frames are latin1 strings, byte for byte). */
const wire = (line: string): string => Buffer.from(line, 'latin1').toString('utf8');

test('a watch frame is one JSON event line around the response bytes, for each event type', () => {
  const o = new EncodedObject('/registry/pods/ns/p', stored, 42, jsonCodec);
  for (const type of ['ADDED', 'MODIFIED', 'DELETED'] as const) {
    const line = sharedFrame(type, o);
    assert.ok(line.endsWith('}\n') && line.indexOf('\n') === line.length - 1, 'one line');
    assert.deepEqual(JSON.parse(wire(line)), {
      type,
      object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '42', name: 'p' } },
    });
  }
});

test('a frame splices the resourceVersion into any stored object, and carries its response bytes exactly', () => {
  for (const json of [
    '{"kind":"Pod","apiVersion":"v1","metadata":{}}',
    '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"é"},"spec":{"x":[1,2]}}',
    '{"kind":"Status"}',
  ]) {
    const o = new EncodedObject('/k', Buffer.from(json), 9_007_199_254_740_991, jsonCodec);
    const frame = sharedFrame('DELETED', o);
    assert.deepEqual(
      Buffer.from(frame, 'latin1'),
      Buffer.concat([Buffer.from('{"type":"DELETED","object":'), o.bytes(), Buffer.from('}\n')]),
    );
    const parsed = JSON.parse(wire(frame)) as {
      type: string;
      object: { metadata?: { resourceVersion?: string; name?: string } };
    };
    assert.equal(parsed.type, 'DELETED');
    if (json.includes('metadata')) assert.equal(parsed.object.metadata?.resourceVersion, '9007199254740991');
    if (json.includes('é')) assert.equal(parsed.object.metadata?.name, 'é');
  }
});
