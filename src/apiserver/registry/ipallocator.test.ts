import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IPAllocator, PortAllocator } from './ipallocator.js';

test('ClusterIPs are handed out once, in range, and restored allocations are never reused', async () => {
  const a = new IPAllocator('10.96.0.0/29');
  assert.equal(a.first(), '10.96.0.1');
  await a.restore('10.96.0.1');
  const got = new Set<string>();
  for (let i = 0; i < 5; i++) got.add(await a.allocateNext());
  assert.equal(got.size, 5);
  assert.ok(!got.has('10.96.0.1') && !got.has('10.96.0.0') && !got.has('10.96.0.7'));
  await assert.rejects(() => a.allocateNext(), /range is full/);
  await a.release('10.96.0.3');
  assert.equal(await a.allocateNext(), '10.96.0.3');
  await assert.rejects(() => a.allocate('10.96.0.3'), /already allocated/);
  await assert.rejects(() => a.allocate('10.97.0.3'), /not in the valid range/);
});

test('NodePorts come from the range and are not duplicated', async () => {
  const p = new PortAllocator('30000-30002');
  await p.allocate(30001, 'spec.ports[0].nodePort');
  assert.deepEqual([await p.allocateNext(), await p.allocateNext()].sort(), [30000, 30002]);
  await assert.rejects(() => p.allocateNext(), /range is full/);
  await assert.rejects(() => p.allocate(29999, 'f'), /not in the valid range/);
});
