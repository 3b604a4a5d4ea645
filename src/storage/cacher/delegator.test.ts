import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ReadVersion } from '../objects.js';
import { shouldDelegate, type CacheReadState, type ReadKind } from './delegator.js';

const cache = (over: Partial<CacheReadState> = {}): CacheReadState => ({
  isReady: true,
  oldestRevision: 100,
  consistentReadsFromCache: true,
  consistentGetsFromCache: true,
  ...over,
});

test('shouldDelegate sends to storage exactly the reads the cache cannot answer', () => {
  const cases: [string, ReadKind, ReadVersion, CacheReadState | undefined, boolean][] = [
    ['no watch cache', 'list', { minRevision: 0 }, undefined, true],
    ['cache not initialized', 'list', { minRevision: 0 }, cache({ isReady: false }), true],
    ['exact inside the window', 'list', { revision: 100 }, cache(), false],
    ['exact older than the window', 'list', { revision: 99 }, cache(), true],
    ['exact older than the window, get', 'get', { revision: 50 }, cache(), true],
    ['resourceVersion "0"', 'list', { minRevision: 0 }, cache(), false],
    ['NotOlderThan N, older than the window', 'get', { minRevision: 5 }, cache(), false],
    ['consistent list with reliable progress', 'list', {}, cache(), false],
    [
      'consistent list without it',
      'list',
      {},
      cache({ consistentReadsFromCache: false, consistentGetsFromCache: false }),
      true,
    ],
    ['consistent get, acknowledged revision known', 'get', {}, cache(), false],
    ['consistent get over etcd (a round trip either way)', 'get', {}, cache({ consistentGetsFromCache: false }), true],
    ['consistent list over etcd with progress', 'list', {}, cache({ consistentGetsFromCache: false }), false],
  ];
  for (const [name, kind, read, state, want] of cases) assert.equal(shouldDelegate(kind, read, state), want, name);
});
