import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { test } from 'node:test';
import type { WatchEvent } from './interface.js';
import { WatchChannel } from './watch_channel.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function event(rev: number): WatchEvent {
  return {
    type: 'put',
    key: `/k/${rev}`,
    revision: rev,
    kv: { key: `/k/${rev}`, value: Buffer.from(`v${rev}`), createRevision: rev, modRevision: rev },
  };
}

/**
 * Pushes events from..to and returns weak references to their values. Not async: an async function's
 * suspended frame keeps its registers, so a loop variable there would still hold the last event.
 */
function pushWatched(ch: WatchChannel, from: number, to: number): WeakRef<Buffer>[] {
  const refs: WeakRef<Buffer>[] = [];
  for (let r = from; r <= to; r++) {
    const ev = event(r);
    refs.push(new WeakRef(ev.kv!.value));
    ch.push(ev);
  }
  return refs;
}

async function take(it: AsyncIterator<WatchEvent>, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = await it.next();
    assert.equal(r.done, false);
    out.push(r.value.revision);
  }
  return out;
}

test('events come out in order across drains, waits and the queue compaction', async () => {
  const ch = new WatchChannel();
  const it = ch[Symbol.asyncIterator]();
  for (let r = 1; r <= 3; r++) ch.push(event(r));
  assert.deepEqual(await take(it, 3), [1, 2, 3]);
  assert.equal(ch.length, 0);
  const waiting = it.next();
  ch.push(event(4));
  assert.equal((await waiting).value?.revision, 4);
  for (let r = 5; r <= 3004; r++) ch.push(event(r));
  assert.deepEqual(
    await take(it, 1500),
    Array.from({ length: 1500 }, (_, i) => i + 5),
  );
  for (let r = 3005; r <= 3010; r++) ch.push(event(r));
  assert.equal(ch.length, 1506);
  const rest = await take(it, 1506);
  assert.deepEqual(
    rest,
    Array.from({ length: 1506 }, (_, i) => i + 1505),
  );
  ch.stop();
  assert.equal((await it.next()).done, true);
});

test('an event read from the channel is no longer held by it', async () => {
  const ch = new WatchChannel();
  const it = ch[Symbol.asyncIterator]();
  const refs = pushWatched(ch, 1, 10);
  // Half read while more remain queued, then the rest: both ways of emptying the slot must let go.
  await take(it, 5);
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  assert.deepEqual(
    refs.map((r) => r.deref() === undefined),
    [true, true, true, true, true, false, false, false, false, false],
  );
  await take(it, 5);
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  assert.deepEqual(
    refs.map((r) => r.deref() === undefined),
    refs.map(() => true),
  );
  ch.stop();
});

test('a consumer that falls capacity events behind is cut off with TooSlow after what it had', async () => {
  const ch = new WatchChannel(3);
  const it = ch[Symbol.asyncIterator]();
  for (let r = 1; r <= 3; r++) assert.equal(ch.push(event(r)), true);
  assert.equal(ch.push(event(4)), false);
  assert.deepEqual(await take(it, 3), [1, 2, 3]);
  await assert.rejects(it.next(), (err: Error & { code?: string }) => err.code === 'TooSlow');
});
