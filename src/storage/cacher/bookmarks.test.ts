import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextBookmarkTime } from './bookmarks.js';
import type { ObjectEvent } from '../objects.js';
import { openCacher, pod, take, turn } from './test_helpers.js';

const P = '/registry/pods/';

test('bookmarks come about once a minute and 2 s before the deadline, only when asked', async () => {
  const f = await openCacher(P);
  try {
    const start = f.clock.now();
    const withBookmarks = f.cacher.watchObjects({ allowBookmarks: true, deadline: start + 90_000 });
    const without = f.cacher.watchObjects({});
    await turn();
    const kv = await f.sqlite.create(`${P}default/a`, pod('a'));
    await f.cacher.list(P);
    const seen: { at: number; ev: ObjectEvent }[] = [];
    const reader = (async () => {
      for await (const ev of withBookmarks) seen.push({ at: f.clock.now() - start, ev });
    })();
    for (let s = 0; s < 95; s++) {
      f.clock.step(1_000);
      await turn();
    }
    withBookmarks.stop();
    await reader;
    const bookmarks = seen.filter((x) => x.ev.type === 'BOOKMARK');
    assert.deepEqual(
      bookmarks.map((b) => Math.round(b.at / 1000)),
      [60, 88],
      'one at a minute, one 2 s before the 90 s deadline',
    );
    assert.ok(bookmarks.every((b) => b.ev.revision >= kv.modRevision && b.ev.object === null));
    const [first] = await take(without, 1);
    assert.equal(first.type, 'ADDED');
    without.stop();
  } finally {
    await f.close();
  }
});

test('nextBookmarkTime follows upstream: the earlier of a minute and 2 s before the deadline', () => {
  assert.equal(nextBookmarkTime(0, 60_000), 60_000);
  assert.equal(nextBookmarkTime(0, 60_000, 30_000), 28_000);
  assert.equal(nextBookmarkTime(0, 60_000, 1_000), undefined, 'too close to the deadline: none');
});
