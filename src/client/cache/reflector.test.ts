import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newStatusError, type KubeList, type KubeObject } from '../../api/index.js';
import { FakeClock } from '../../clock/index.js';
import type { Watch, WatchEvent, WatchSink } from '../rest/watch.js';
import type { ListerWatcher } from './listwatch.js';
import { Reflector, stripManagedFields } from './reflector.js';
import { Indexer } from './store.js';

const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

/** A watch fed by the test. */
class FakeWatch implements Watch {
  private q: (WatchEvent | 'end')[] = [];
  private wake: (() => void) | undefined;
  stopped = false;
  push(e: WatchEvent | 'end'): void {
    this.q.push(e);
    this.wake?.();
  }
  stop(): void {
    this.stopped = true;
    this.wake?.();
  }
  async [Symbol.asyncDispose](): Promise<void> {
    this.stop();
  }
  async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent> {
    for (;;) {
      if (this.stopped) return;
      const e = this.q.shift();
      if (e === 'end') return;
      if (e !== undefined) {
        yield e;
        continue;
      }
      await new Promise<void>((r) => (this.wake = r));
    }
  }
}

/** A watch that pushes to its consumer (as StreamWatch does), fed by the test. */
class PushWatch implements Watch {
  sink: WatchSink | undefined;
  stopped = false;
  consume(sink: WatchSink): void {
    this.sink = sink;
  }
  push(e: WatchEvent): void {
    if (!this.stopped) this.sink!.event(e);
  }
  end(err?: Error): void {
    if (!this.stopped) this.sink!.end(err);
  }
  stop(): void {
    this.stopped = true;
  }
  async [Symbol.asyncDispose](): Promise<void> {
    this.stop();
  }
  async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent> {
    throw new Error('a consumed watch is not iterated');
  }
}

const refused = (): Error => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
const list = (rv: string, items: KubeObject[] = []): KubeList => ({
  apiVersion: 'v1',
  kind: 'ConfigMapList',
  metadata: { resourceVersion: rv },
  items,
});

function store(): Indexer & { replace(items: KubeObject[], rv?: string): void } {
  return new Indexer();
}

test('failed lists back off exponentially with jitter on the clock', async () => {
  const clock = new FakeClock();
  const calls: number[] = [];
  const watches: FakeWatch[] = [];
  const lw: ListerWatcher = {
    list: async () => {
      calls.push(clock.now());
      if (calls.length < 3) throw refused();
      return list('5');
    },
    watch: async () => {
      const w = new FakeWatch();
      watches.push(w);
      return w;
    },
  };
  const r = new Reflector(lw, store(), { clock, random: () => 0.5 });
  const t0 = clock.now();
  const h = r.run();
  await settle();
  assert.equal(calls.length, 1);
  clock.step(1199);
  await settle();
  assert.equal(calls.length, 1, 'first retry after 800 ms + 50% jitter');
  clock.step(1);
  await settle();
  assert.equal(calls.length, 2);
  clock.step(2400);
  await settle();
  assert.deepEqual(
    calls.map((c) => c - t0),
    [0, 1200, 3600],
  );
  assert.equal(watches.length, 1);
  assert.equal(r.lastSyncResourceVersion(), '5');
  await h.stop();
  assert.equal(watches[0]!.stopped, true);
});

test('clients that fail together retry at different times', async () => {
  const first: number[] = [];
  for (const seed of [0.1, 0.4, 0.7, 0.95]) {
    const clock = new FakeClock();
    const calls: number[] = [];
    const lw: ListerWatcher = {
      list: async () => {
        calls.push(clock.now());
        throw refused();
      },
      watch: async () => new FakeWatch(),
    };
    const h = new Reflector(lw, store(), { clock, random: () => seed }).run();
    await settle();
    // Step in 10 ms slices so the retry is observed near the moment its timer fired.
    while (calls.length < 2) {
      clock.step(10);
      await settle();
    }
    first.push(calls[1]! - calls[0]!);
    await h.stop();
  }
  assert.equal(new Set(first).size, 4, `retry delays ${first.join(', ')}`);
});

test('an ERROR 410 event relists with a consistent read; a clean close re-watches from the last RV', async () => {
  const clock = new FakeClock();
  const lists: string[] = [];
  const watchRVs: string[] = [];
  const watches: FakeWatch[] = [];
  const lw: ListerWatcher = {
    list: async (o) => {
      lists.push(o.resourceVersion ?? '');
      return list(lists.length === 1 ? '10' : '30');
    },
    watch: async (o) => {
      watchRVs.push(o.resourceVersion ?? '');
      assert.equal(o.allowWatchBookmarks, true);
      const w = new FakeWatch();
      watches.push(w);
      return w;
    },
  };
  const r = new Reflector(lw, store(), { clock, random: () => 0.5 });
  const h = r.run();
  await settle();
  watches[0]!.push({
    type: 'ADDED',
    object: { kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns', resourceVersion: '11' } },
  });
  watches[0]!.push({ type: 'BOOKMARK', object: { kind: 'ConfigMap', metadata: { resourceVersion: '15' } } });
  clock.step(2000);
  watches[0]!.push('end');
  await settle();
  clock.step(250);
  await settle();
  assert.deepEqual(watchRVs, ['10', '15'], 'resumed from the bookmark');
  watches[1]!.push({
    type: 'ERROR',
    object: newStatusError(410, 'Expired', 'too old resource version: 15 (20)').status,
  });
  await settle();
  clock.step(1200);
  await settle();
  assert.deepEqual(lists, ['0', '']);
  assert.equal(r.stats.expired, 1);
  assert.deepEqual(watchRVs, ['10', '15', '30']);
  await h.stop();
});

test('a transform (stripManagedFields) applies to listed and watched objects before they are stored', async () => {
  const clock = new FakeClock();
  const w = new FakeWatch();
  const mf = [{ manager: 'kubectl', operation: 'Update' }];
  const lw: ListerWatcher = {
    list: async () =>
      list('5', [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'a', namespace: 'd', resourceVersion: '4', managedFields: mf },
        },
      ]),
    watch: async () => w,
  };
  const s = store();
  const r = new Reflector(lw, s, { clock, random: () => 0.5, transform: stripManagedFields }).run();
  try {
    await settle();
    w.push({
      type: 'ADDED',
      object: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'b', namespace: 'd', resourceVersion: '6', managedFields: mf },
      },
    });
    await settle();
    const stored = s.list();
    assert.deepEqual(stored.map((o) => o.metadata?.name).sort(), ['a', 'b']);
    for (const o of stored) assert.equal(o.metadata?.managedFields, undefined);
  } finally {
    await r.stop();
  }
});

test('a watch that pushes: events reach the store, a failing store or a broken stream backs off, a 410 relists, stop ends it', async () => {
  const clock = new FakeClock();
  const lists: string[] = [];
  const watchRVs: string[] = [];
  const watches: PushWatch[] = [];
  const lw: ListerWatcher = {
    list: async (o) => {
      lists.push(o.resourceVersion ?? '');
      return list(lists.length === 1 ? '10' : '40');
    },
    watch: async (o) => {
      watchRVs.push(o.resourceVersion ?? '');
      const w = new PushWatch();
      watches.push(w);
      return w;
    },
  };
  const s = store();
  let refuse = false;
  const add = s.add.bind(s);
  s.add = (o) => {
    if (refuse) throw new Error('store refused');
    add(o);
  };
  const r = new Reflector(lw, s, { clock, random: () => 0.5 });
  const h = r.run();
  await settle();
  const cm = (name: string, rv: string): WatchEvent => ({
    type: 'ADDED',
    object: { kind: 'ConfigMap', metadata: { name, namespace: 'ns', resourceVersion: rv } },
  });
  watches[0]!.push(cm('a', '11'));
  assert.deepEqual(s.listKeys(), ['ns/a']);
  assert.equal(r.lastSyncResourceVersion(), '11');
  // A store that throws ends the watch as an error: stopped, then a re-watch from the last RV after a backoff.
  refuse = true;
  assert.throws(() => watches[0]!.push(cm('b', '12')), /store refused/);
  refuse = false;
  watches[0]!.end(new Error('store refused'));
  assert.equal(watches[0]!.stopped, true);
  assert.equal(r.stats.failures, 1);
  clock.step(1199);
  await settle();
  assert.equal(watches.length, 1, 'not before the backoff (800 ms + 50% jitter)');
  clock.step(1);
  await settle();
  assert.deepEqual(watchRVs, ['10', '11']);
  // A stream lost mid-way: the same.
  watches[1]!.push(cm('c', '13'));
  watches[1]!.end(Object.assign(new Error('watch stream closed unexpectedly'), { code: 'ECONNRESET' }));
  clock.step(2400);
  await settle();
  assert.deepEqual(watchRVs, ['10', '11', '13']);
  // 410 as an event: relist with a consistent read, then watch from the list's RV.
  watches[2]!.push({ type: 'ERROR', object: newStatusError(410, 'Expired', 'too old resource version').status });
  assert.equal(watches[2]!.stopped, true);
  clock.step(5000);
  await settle();
  assert.deepEqual(lists, ['0', '']);
  assert.deepEqual(watchRVs, ['10', '11', '13', '40']);
  await h.stop();
  assert.equal(watches[3]!.stopped, true, 'stop stops the open watch');
  assert.equal(clock.pending(), 0, 'and leaves no timer');
});
