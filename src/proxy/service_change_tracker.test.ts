import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ServiceChangeTracker, applyServiceChanges } from './service_change_tracker.js';
import { service } from './testing/objects.js';
import type { ServicePortMap } from './types.js';

test('an add followed by its delete before a sync leaves no change', () => {
  const t = new ServiceChangeTracker();
  const s = service('a', '10.96.0.1');
  assert.equal(t.update(undefined, s), true);
  assert.equal(t.update(s, undefined), false);
  assert.equal(t.checkout().length, 0);
});

test('an update that changes nothing the proxy renders is dropped', () => {
  const t = new ServiceChangeTracker();
  const s = service('a', '10.96.0.1');
  const relabelled = { ...s, metadata: { ...s.metadata, labels: { x: 'y' } } };
  assert.equal(t.update(s, relabelled), false);
  assert.equal(t.pending(), 0);
});

test('several updates collapse into the first previous and the last current', () => {
  const t = new ServiceChangeTracker();
  const s1 = service('a', '10.96.0.1', { port: 80 });
  const s2 = service('a', '10.96.0.1', { port: 81 });
  const s3 = service('a', '10.96.0.1', { port: 82 });
  t.update(s1, s2);
  t.update(s2, s3);
  const [c] = t.checkout();
  assert.equal(c!.previous.get('default/a:p')!.port, 80);
  assert.equal(c!.current.get('default/a:p')!.port, 82);
  assert.equal(t.pending(), 0);
});

test("headless, ExternalName and other proxies' services are skipped", () => {
  const t = new ServiceChangeTracker();
  assert.equal(t.update(undefined, service('h', 'None')), false);
  assert.equal(t.update(undefined, service('x', '10.96.0.2', { type: 'ExternalName' })), false);
  const other = service('o', '10.96.0.3');
  other.metadata!.labels = { 'service.kubernetes.io/service-proxy-name': 'someone-else' };
  assert.equal(t.update(undefined, other), false);
});

test('applying changes reports changed ports and the cluster IPs of removed UDP ports', () => {
  const map: ServicePortMap = new Map();
  const t = new ServiceChangeTracker();
  const dns = service('dns', '10.96.0.10', { protocol: 'UDP', port: 53 });
  t.update(undefined, dns);
  t.update(undefined, service('web', '10.96.0.11'));
  let r = applyServiceChanges(map, t.checkout());
  assert.deepEqual([...r.changed].sort(), ['default/dns:p', 'default/web:p']);
  assert.equal(r.deletedUDPClusterIPs.size, 0);
  t.update(dns, undefined);
  r = applyServiceChanges(map, t.checkout());
  assert.deepEqual([...r.changed], ['default/dns:p']);
  assert.deepEqual([...r.deletedUDPClusterIPs], ['10.96.0.10']);
  assert.deepEqual([...map.keys()], ['default/web:p']);
});

test('session affinity and traffic policies are read from the spec', () => {
  const t = new ServiceChangeTracker();
  t.update(
    undefined,
    service('a', '10.96.0.1', { affinity: true, nodePort: 30001, externalPolicy: 'Local', internalPolicy: 'Local' }),
  );
  const info = t.checkout()[0]!.current.get('default/a:p')!;
  assert.equal(info.stickySeconds, 10800);
  assert.equal(info.nodePort, 30001);
  assert.equal(info.externalPolicyLocal, true);
  assert.equal(info.internalPolicyLocal, true);
});
