import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { EncodedObject, jsonCodec, type ObjectWatcher } from '../../storage/index.js';
import type { RestContext, ServerServices } from './context.js';
import { WATCH_BUFFER_BYTES, WatchResponse } from './watch.js';

// A pod-sized stored object (~4 KB), as the cluster-wide pod watches carry them.
const pod = (i: number): EncodedObject =>
  new EncodedObject(
    `/registry/pods/ns/p${i}`,
    Buffer.from(JSON.stringify({ kind: 'Pod', apiVersion: 'v1', metadata: { name: `p${i}` }, pad: 'x'.repeat(4000) })),
    i + 1,
    jsonCodec,
  );

test('a watch keeps writing past the response mark until WATCH_BUFFER_BYTES wait unsent, then pauses for drain', async () => {
  // A real writable with Node's 16 KiB mark that nobody reads yet: its write() turns false after four pods.
  const res = new PassThrough({ highWaterMark: 16 * 1024 });
  const w = new WatchResponse(
    res as unknown as RestContext['res'],
    {} as ObjectWatcher,
    {} as ServerServices,
    'Pod',
    'v1',
    undefined,
  );
  let accepted = 0;
  while (w.item({ type: 'MODIFIED', revision: accepted + 1, object: pod(accepted) })) {
    accepted++;
    assert.ok(accepted < 1000, 'never paused');
  }
  assert.ok(accepted > 200, `paused after ${accepted} pods: the response's own 16 KiB mark held it`);
  assert.ok(res.writableLength >= WATCH_BUFFER_BYTES, `paused with only ${res.writableLength} bytes unsent`);
  assert.equal(res.listenerCount('drain'), 1, 'the paused watch waits for drain');
  // Reading everything drains it; the watch takes events again.
  res.resume();
  await new Promise((r) => res.once('drain', r));
  assert.equal(res.listenerCount('drain'), 0);
  assert.equal(w.item({ type: 'MODIFIED', revision: 5000, object: pod(5000) }), true);
});
