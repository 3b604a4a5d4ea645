import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TopologyCache } from './topology_cache.js';
import type { Endpoint, Node } from '../../api/index.js';

const node = (name: string, zone: string | undefined, cpu = '8'): Node => ({
  metadata: { name, labels: zone === undefined ? {} : { 'topology.kubernetes.io/zone': zone } },
  status: { allocatable: { cpu }, conditions: [{ type: 'Ready', status: 'True' }] },
});
const ep = (zone: string, ready = true): Endpoint => ({ addresses: ['10.0.0.1'], conditions: { ready }, zone });

test('PreferClose hints each endpoint to its own zone', () => {
  const c = new TopologyCache();
  assert.deepEqual(c.hintsFor('preferClose', [ep('a'), ep('b')]).hints, ['a', 'b']);
});

test('Auto keeps endpoints in their zones when the zones are balanced', () => {
  const c = new TopologyCache();
  c.setNodes([node('n1', 'a'), node('n2', 'b'), node('n3', 'c')]);
  assert.deepEqual(c.hintsFor('auto', [ep('a'), ep('b'), ep('c'), ep('a'), ep('b'), ep('c')]).hints, [
    'a',
    'b',
    'c',
    'a',
    'b',
    'c',
  ]);
});

test('Auto hands surplus endpoints to zones short of them, in proportion to CPU', () => {
  const c = new TopologyCache();
  c.setNodes([node('n1', 'a', '16'), node('n2', 'b', '8'), node('n3', 'c', '8')]);
  const r = c.hintsFor('auto', [ep('a'), ep('a'), ep('a'), ep('a'), ep('a'), ep('a'), ep('a'), ep('c')]);
  assert.equal(r.disabledReason, undefined);
  const count = (z: string): number => r.hints.filter((h) => h === z).length;
  assert.deepEqual([count('a'), count('b'), count('c')], [4, 2, 2]);
});

test('Auto gives no hints with fewer endpoints than zones, or a node without a zone', () => {
  const c = new TopologyCache();
  c.setNodes([node('n1', 'a'), node('n2', 'b'), node('n3', 'c')]);
  assert.match(c.hintsFor('auto', [ep('a'), ep('b')]).disabledReason ?? '', /Insufficient number of endpoints/);
  c.setNodes([node('n1', 'a'), node('n2', undefined)]);
  const r = c.hintsFor('auto', [ep('a'), ep('a')]);
  assert.deepEqual(r.hints, [undefined, undefined]);
  assert.match(r.disabledReason ?? '', /Insufficient Node information/);
});
