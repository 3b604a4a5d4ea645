import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openSqliteStorage } from '../../storage/index.js';
import { Bitmap, decodeRangeAllocation, StoredOffsets } from './allocator_storage.js';
import { IPAllocator } from './ipallocator.js';

const KEY = '/registry/ranges/serviceips';

test('two allocators over one stored bitmap never hand out one address twice', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-alloc-'));
  const s = await openSqliteStorage({ dataDir: dir });
  try {
    // Two "servers": separate allocators, each with its own cached copy, over the same key.
    const range = '10.96.0.0/24';
    const a = new IPAllocator(range, (n) => new StoredOffsets(s, KEY, n, range));
    const b = new IPAllocator(range, (n) => new StoredOffsets(s, KEY, n, range));
    const got = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).allocateNext()));
    assert.equal(new Set(got).size, 200);
    const bits = decodeRangeAllocation(await s.get(KEY), a.count);
    assert.equal([...bits.offsets()].length, 200, 'storage holds every allocation');
    // A released address is free for the other allocator.
    await a.release(got[0]);
    await b.allocate(got[0]);
    await assert.rejects(() => a.allocate(got[0]), /already allocated/);
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('racing for the last free address: exactly one wins, the other gets range is full', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-alloc-'));
  const s = await openSqliteStorage({ dataDir: dir });
  try {
    const range = '10.96.0.0/29';
    const a = new IPAllocator(range, (n) => new StoredOffsets(s, KEY, n, range));
    const b = new IPAllocator(range, (n) => new StoredOffsets(s, KEY, n, range));
    for (let i = 0; i < a.count - 1; i++) await a.allocateNext();
    const results = await Promise.allSettled([a.allocateNext(), b.allocateNext()]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    const lost = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!;
    assert.match(String(lost.reason), /range is full/);
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the bitmap encodes only up to its last set byte', () => {
  const b = new Bitmap(1 << 20);
  assert.equal(b.encode().length, 0);
  b.set(0, true);
  b.set(17, true);
  assert.equal(b.encode().length, 3);
  assert.deepEqual([...new Bitmap(1 << 20, b.encode()).offsets()], [0, 17]);
});
