import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WatchCacheEvent } from './watch_cache_event.js';
import { WatcherIndex, type Routable, type WatcherRoute } from './watcher_index.js';

const NODES = 2_500;

/** A pod event on `node` (was on `from`, when it moved), as the index sees it: namespace and spec.nodeName. */
function podEvent(node: string, from?: string): WatchCacheEvent {
  const entry = (n: string): unknown => ({ namespace: 'default', indexValue: (i: number) => (i === 0 ? n : 'x') });
  return { object: entry(node), prev: from === undefined ? null : entry(from) } as unknown as WatchCacheEvent;
}

test('2,500 kubelet pod watches (spec.nodeName=<node>): a pod event reaches only its node, not every watcher', () => {
  const index = new WatcherIndex<Routable>(2);
  const byNode = new Map<string, Routable>();
  for (let i = 0; i < NODES; i++) {
    const route: WatcherRoute = { index: { position: 0, value: `node-${i}` } };
    const w = { route, lastDispatch: 0 };
    byNode.set(`node-${i}`, w);
    index.add(w);
  }
  const scheduler = { route: {}, lastDispatch: 0 };
  index.add(scheduler);
  assert.equal(index.size, NODES + 1);
  let visits = 0;
  const events = 10_000;
  for (let e = 0; e < events; e++) {
    const seen: Routable[] = [];
    index.forEachInterested(podEvent(`node-${e % NODES}`), (w) => {
      visits++;
      seen.push(w);
    });
    assert.deepEqual(seen, [scheduler, byNode.get(`node-${e % NODES}`)]);
  }
  // O(interested watchers): two per event (the node's and the unfiltered one), never O(2,500).
  assert.equal(visits, 2 * events);
  const moved: Routable[] = [];
  index.forEachInterested(podEvent('node-7', 'node-9'), (w) => moved.push(w));
  assert.deepEqual(moved, [scheduler, byNode.get('node-7'), byNode.get('node-9')], 'old and new node both hear a move');
});
