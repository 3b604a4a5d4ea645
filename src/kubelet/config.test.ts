import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nodeIdentity, parseLabels, parseTaints, zoneName } from './config.js';
import { logNormalLatency, parseLatency } from './latency.js';
import { parseDuration } from '../api/index.js';

test('--register-with-taints parses like the kubelet flag', () => {
  assert.deepEqual(parseTaints('kscale.io/hollow=true:NoSchedule,dedicated:NoExecute'), [
    { key: 'kscale.io/hollow', value: 'true', effect: 'NoSchedule' },
    { key: 'dedicated', effect: 'NoExecute' },
  ]);
  assert.deepEqual(parseTaints(''), []);
  assert.throws(() => parseTaints('a=b:Sometimes'), /invalid taint/);
  assert.deepEqual(parseLabels('a=1, b=two'), { a: '1', b: 'two' });
});

test('node identities are distinct per index: names, zones, addresses and /24 pod CIDRs', () => {
  const a = nodeIdentity('hollow-node-', 0, 3);
  const b = nodeIdentity('hollow-node-', 257, 3);
  assert.deepEqual(a, {
    index: 0,
    name: 'hollow-node-0',
    zone: 'zone-a',
    internalIP: '127.1.0.1',
    podCIDR: '10.64.0.0/24',
  });
  assert.deepEqual(b, {
    index: 257,
    name: 'hollow-node-257',
    zone: 'zone-c',
    internalIP: '127.1.1.2',
    podCIDR: '10.65.1.0/24',
  });
  assert.equal(zoneName(26), 'zone-aa');
});

test('start-up latency has the requested median and 99th percentile', () => {
  let seed = 1;
  const random = (): number => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const sample = logNormalLatency(1000, 3000, random);
  const xs = Array.from({ length: 20_000 }, sample).sort((x, y) => x - y);
  assert.ok(Math.abs(xs[10_000]! - 1000) < 60, `p50 ${xs[10_000]}`);
  assert.ok(Math.abs(xs[19_800]! - 3000) < 300, `p99 ${xs[19_800]}`);
  assert.deepEqual(parseLatency('100,2s', parseDuration), { p50Ms: 100, p99Ms: 2000 });
  assert.throws(() => parseLatency('300,100', parseDuration), /below/);
});
