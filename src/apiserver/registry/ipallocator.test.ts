import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IPAllocator, PortAllocator } from './ipallocator.js';

test('ClusterIPs are handed out once, in range, and restored allocations are never reused', () => {
  const a = new IPAllocator('10.96.0.0/29');
  assert.equal(a.first(), '10.96.0.1');
  a.restore('10.96.0.1');
  const got = new Set<string>();
  for (let i = 0; i < 5; i++) got.add(a.allocateNext());
  assert.equal(got.size, 5);
  assert.ok(!got.has('10.96.0.1') && !got.has('10.96.0.0') && !got.has('10.96.0.7'));
  assert.throws(() => a.allocateNext(), /range is full/);
  a.release('10.96.0.3');
  assert.equal(a.allocateNext(), '10.96.0.3');
  assert.throws(() => a.allocate('10.96.0.3'), /already allocated/);
  assert.throws(() => a.allocate('10.97.0.3'), /not in the valid range/);
});

test('NodePorts come from the range and are not duplicated', () => {
  const p = new PortAllocator('30000-30002');
  p.allocate(30001, 'spec.ports[0].nodePort');
  assert.deepEqual([p.allocateNext(), p.allocateNext()].sort(), [30000, 30002]);
  assert.throws(() => p.allocateNext(), /range is full/);
  assert.throws(() => p.allocate(29999, 'f'), /not in the valid range/);
});
