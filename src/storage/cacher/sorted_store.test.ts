import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CachedObject, jsonCodec } from './cached_object.js';
import { SortedStore } from './sorted_store.js';

const P = '/registry/pods/';

/** A pod entry at `rev` on node `node`, indexed by spec.nodeName then metadata.name. */
function entry(ns: string, name: string, node: string, rev: number): CachedObject {
  const key = `${P}${ns}/${name}`;
  return new CachedObject(
    { key, value: Buffer.from('{}'), createRevision: rev, modRevision: rev },
    ns,
    [node, name],
    jsonCodec,
  );
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

test('thousands of random creations, replacements and deletions keep every walk in key order, across block splits and emptied blocks', () => {
  const s = new SortedStore(['spec.nodeName', 'metadata.name']);
  const model = new Map<string, number>();
  let seed = 7;
  // xorshift32: deterministic, and its low bits are not periodic as an LCG's are.
  const rand = (n: number): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  for (let step = 0; step < 6000; step++) {
    // Random suffixes, as generated pod names have: most creations land inside the list, not at its end.
    const name = `p-${rand(3000).toString(36)}`;
    const ns = `ns${rand(3)}`;
    const key = `${P}${ns}/${name}`;
    if (rand(4) === 0) {
      assert.equal(s.delete(key)?.key, model.has(key) ? key : undefined);
      model.delete(key);
    } else {
      s.put(entry(ns, name, '', step));
      model.set(key, step);
    }
  }
  const sorted = [...model.keys()].sort();
  assert.equal(s.size, sorted.length);
  assert.ok(sorted.length > 1000, 'enough entries for several blocks');
  assert.deepEqual(keys([...s.from('')]), sorted);
  assert.deepEqual(
    keys(s.range(`${P}ns1/`)),
    sorted.filter((k) => k.startsWith(`${P}ns1/`)),
  );
  const mid = sorted[Math.floor(sorted.length / 2)]!;
  assert.deepEqual(
    keys([...s.from(mid)]),
    sorted.filter((k) => k >= mid),
  );
  assert.deepEqual(
    keys([...s.from(`${mid}\0`)]),
    sorted.filter((k) => k > mid),
  );
  assert.equal(s.get(mid)?.revision, model.get(mid));
  for (const k of sorted) s.delete(k);
  assert.equal(s.size, 0);
  assert.deepEqual([...s.from('')], []);
});

test('a walk that spans changes goes on after the last key it gave', () => {
  const s = new SortedStore(['spec.nodeName', 'metadata.name']);
  for (let i = 0; i < 2000; i++) s.put(entry('a', `p${String(i).padStart(4, '0')}`, '', i + 1));
  const walk = s.from(`${P}a/`);
  const seen: string[] = [];
  for (let i = 0; i < 1000; i++) seen.push(walk.next().value!.key);
  assert.equal(seen.at(-1), `${P}a/p0999`);
  // Behind the walk: a creation and the deletion of what it already gave; ahead of it: a creation and a deletion.
  s.put(entry('a', 'p0500x', '', 5000));
  s.delete(`${P}a/p0998`);
  s.put(entry('a', 'p1500x', '', 5001));
  s.delete(`${P}a/p1000`);
  for (let r = walk.next(); !r.done; r = walk.next()) seen.push(r.value.key);
  assert.equal(
    seen.length,
    1000 + 999 + 1,
    'the rest once each: p1001 to p1999 (p1000 deleted), and p1500x created ahead',
  );
  assert.equal(seen[1000], `${P}a/p1001`);
  assert.ok(seen.includes(`${P}a/p1500x`) && !seen.includes(`${P}a/p0500x`));
  assert.deepEqual(seen, [...seen].sort(), 'still in key order');
});
