import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EndpointsChangeTracker, applyEndpointsChanges } from './endpoints_change_tracker.js';
import { slice } from './testing/objects.js';
import type { EndpointsMap } from './types.js';

test('slices of one service are merged, and an endpoint in two slices counts once', () => {
  const t = new EndpointsChangeTracker('n1');
  t.sliceUpdate(slice('web', 'web-1', ['10.0.0.1', '10.0.0.2']), false);
  t.sliceUpdate(slice('web', 'web-2', ['10.0.0.2', '10.0.0.3']), false);
  const { changes } = t.checkout();
  assert.equal(changes.length, 1);
  assert.deepEqual(
    changes[0]!.current.get('default/web:p')!.map((e) => e.ip),
    ['10.0.0.1', '10.0.0.2', '10.0.0.3'],
  );
});

test('a change that is undone before the sync is dropped with its trigger time', () => {
  const t = new EndpointsChangeTracker('n1');
  const s = slice('web', 'web-1', ['10.0.0.1'], { trigger: '2026-12-02T10:00:00Z' });
  t.sliceUpdate(s, false);
  t.checkout();
  t.sliceUpdate(slice('web', 'web-1', ['10.0.0.2'], { trigger: '2026-12-02T10:00:01Z' }), false);
  t.sliceUpdate(slice('web', 'web-1', ['10.0.0.1'], { trigger: '2026-12-02T10:00:02Z' }), false);
  const out = t.checkout();
  assert.equal(out.changes.length, 0);
  assert.equal(out.triggerTimes.length, 0);
});

test('trigger times of real changes are handed over for the network programming metric', () => {
  const t = new EndpointsChangeTracker('n1');
  t.sliceUpdate(slice('web', 'web-1', ['10.0.0.1'], { trigger: '2026-12-02T10:00:00Z' }), false);
  assert.deepEqual(t.checkout().triggerTimes, [Date.parse('2026-12-02T10:00:00Z')]);
});

test('unset conditions read as upstream reads them, and nodeName marks local endpoints', () => {
  const t = new EndpointsChangeTracker('n1');
  const s = slice('web', 'web-1', [
    { ip: '10.0.0.1', node: 'n1' },
    { ip: '10.0.0.2', node: 'n2', ready: false, serving: true, terminating: true },
  ]);
  (s.endpoints as { conditions: object }[])[0]!.conditions = {};
  t.sliceUpdate(s, false);
  const eps = t.checkout().changes[0]!.current.get('default/web:p')!;
  assert.deepEqual(
    eps.map((e) => [e.ip, e.ready, e.serving, e.terminating, e.isLocal]),
    [
      ['10.0.0.1', true, true, false, true],
      ['10.0.0.2', false, true, true, false],
    ],
  );
});

test('applying reports removed ready endpoints and services that become active', () => {
  const map: EndpointsMap = new Map();
  const t = new EndpointsChangeTracker('n1');
  t.sliceUpdate(slice('dns', 'dns-1', ['10.0.0.1', '10.0.0.2']), false);
  let r = applyEndpointsChanges(map, t.checkout().changes);
  assert.deepEqual([...r.newlyActive], ['default/dns:p']);
  t.sliceUpdate(slice('dns', 'dns-1', ['10.0.0.2']), false);
  r = applyEndpointsChanges(map, t.checkout().changes);
  assert.deepEqual(
    r.deleted.map((d) => d.endpoint.ip),
    ['10.0.0.1'],
  );
  assert.equal(r.newlyActive.size, 0);
  t.sliceUpdate(slice('dns', 'dns-1', []), true);
  r = applyEndpointsChanges(map, t.checkout().changes);
  assert.deepEqual([...r.changed], ['default/dns:p']);
  assert.equal(map.has('default/dns:p'), false);
});

test('slices without the service-name label are ignored', () => {
  const t = new EndpointsChangeTracker('n1');
  const s = slice('web', 'web-1', ['10.0.0.1']);
  delete s.metadata!.labels;
  assert.equal(t.sliceUpdate(s, false), false);
});
