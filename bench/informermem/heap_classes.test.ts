/**
 * The heap snapshot summary counts what a real V8 snapshot holds: a snapshot
 * of this process taken with 1,000 more instances of a class than the one
 * before shows 1,000 more of that class, and grownClasses ranks it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeHeapSnapshot } from 'node:v8';
import { grownClasses, heapClasses } from './heap_classes.js';

class HeapClassesMarker {
  constructor(readonly payload: number[]) {}
}

test('heapClasses counts the instances of a class and grownClasses reports the growth', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-heapclasses-'));
  try {
    const kept: HeapClassesMarker[] = [];
    const before = heapClasses(writeHeapSnapshot(join(dir, 'before.heapsnapshot')));
    for (let i = 0; i < 1000; i++) kept.push(new HeapClassesMarker([i, i + 1, i + 2, i + 3]));
    const after = heapClasses(writeHeapSnapshot(join(dir, 'after.heapsnapshot')));
    assert.equal((after.get('HeapClassesMarker')?.count ?? 0) - (before.get('HeapClassesMarker')?.count ?? 0), 1000);
    assert.ok((after.get('HeapClassesMarker')?.selfBytes ?? 0) >= 1000 * 12, 'each instance has a self size');
    const grown = grownClasses(before, after, 50);
    const marker = grown.find((g) => g.name === 'HeapClassesMarker');
    assert.equal(marker?.count, 1000);
    for (let i = 1; i < grown.length; i++) assert.ok(grown[i - 1]!.selfBytes >= grown[i]!.selfBytes, 'sorted by size');
    assert.equal(kept.length, 1000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
