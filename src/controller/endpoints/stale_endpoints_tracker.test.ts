import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StaleEndpointsTracker } from './stale_endpoints_tracker.js';
import type { Endpoints } from '../../api/index.js';

const ep = (rv: string): Endpoints => ({
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { namespace: 'ns', name: 'svc', resourceVersion: rv },
  subsets: [],
});

test('the version a write replaced is stale until the cache moves past it; delete forgets it', () => {
  const t = new StaleEndpointsTracker();
  assert.equal(t.isStale('ns/svc', ep('1')), false, 'nothing written yet');
  t.stale('ns/svc', ep('1'));
  assert.equal(t.isStale('ns/svc', ep('1')), true, 'the cache still holds the replaced version');
  assert.equal(t.isStale('ns/svc', ep('2')), false, 'the cache caught up with the write');
  assert.equal(t.isStale('ns/other', ep('1')), false, 'tracked per Endpoints');
  t.delete('ns/svc');
  assert.equal(t.isStale('ns/svc', ep('1')), false);
});
