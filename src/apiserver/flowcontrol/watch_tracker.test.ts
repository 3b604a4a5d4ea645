import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRequestInfo, selectedName } from '../request_info.js';
import { WatchTracker } from './watch_tracker.js';

const info = (method: string, url: string) => parseRequestInfo(method, url);

test('a write pays for the watches of its resource, its namespace and its object, not for other objects', () => {
  const t = new WatchTracker();
  t.register(info('GET', '/api/v1/configmaps?watch=true'));
  t.register(info('GET', '/api/v1/namespaces/a/configmaps?watch=true'));
  t.register(info('GET', '/api/v1/namespaces/a/configmaps?watch=true&fieldSelector=metadata.name%3Dcm1'));
  const forget = t.register(
    info('GET', '/api/v1/namespaces/a/configmaps?watch=true&fieldSelector=metadata.name%3Dcm1'),
  );
  t.register(info('GET', '/api/v1/namespaces/a/configmaps?watch=true&fieldSelector=metadata.name%3Dcm2'));
  t.register(info('GET', '/api/v1/namespaces/b/configmaps?watch=true'));
  t.register(info('GET', '/api/v1/secrets?watch=true'));
  t.register(info('GET', '/apis/example.io/v1/configmaps?watch=true'));
  assert.equal(t.interestedCount(info('DELETE', '/api/v1/namespaces/a/configmaps/cm1')), 4);
  assert.equal(t.interestedCount(info('PUT', '/api/v1/namespaces/a/configmaps/cm3')), 2);
  assert.equal(t.interestedCount(info('POST', '/api/v1/namespaces/b/configmaps')), 2);
  assert.equal(
    t.interestedCount(info('DELETE', '/api/v1/namespaces/a/configmaps')),
    2,
    'deletecollection: the namespace',
  );
  assert.equal(t.interestedCount(info('GET', '/api/v1/namespaces/a/configmaps/cm1')), 0, 'reads notify nobody');
  forget();
  forget();
  assert.equal(t.interestedCount(info('DELETE', '/api/v1/namespaces/a/configmaps/cm1')), 3, 'forgotten once');
});

test('a cluster-scoped object is matched by name without a namespace', () => {
  const t = new WatchTracker();
  t.register(info('GET', '/api/v1/nodes?watch=true&fieldSelector=metadata.name%3Dn1'));
  t.register(info('GET', '/api/v1/nodes?watch=true'));
  assert.equal(t.interestedCount(info('PATCH', '/api/v1/nodes/n1/status')), 2);
  assert.equal(t.interestedCount(info('PATCH', '/api/v1/nodes/n2/status')), 1);
});

test('the watched name is only an exact metadata.name term', () => {
  const name = (q: string) =>
    selectedName(info('GET', `/api/v1/pods?watch=true&fieldSelector=${encodeURIComponent(q)}`));
  assert.equal(name('metadata.name=x'), 'x');
  assert.equal(name('metadata.name==x'), 'x');
  assert.equal(name('spec.nodeName=n1,metadata.name=y'), 'y');
  assert.equal(name('metadata.name!=x'), '');
  assert.equal(name('spec.nodeName=n1'), '');
  assert.equal(name('metadata.name=a\\,b'), 'a,b', 'an escaped value is unescaped');
  assert.equal(name('metadata.name=a/b'), '', 'a name that cannot be a path segment is none');
  assert.equal(name('metadata.name=x=y'), '', 'a selector that does not parse names nothing');
});
