import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRequestInfo } from './request_info.js';

test('resource requests parse into verb, group, namespace, resource, name and subresource', () => {
  const cases: [string, string, Partial<ReturnType<typeof parseRequestInfo>>][] = [
    ['GET', '/api/v1/pods', { verb: 'list', apiGroup: '', apiVersion: 'v1', resource: 'pods', namespace: '' }],
    [
      'GET',
      '/api/v1/namespaces/ns1/pods/p?watch=true',
      { verb: 'watch', namespace: 'ns1', resource: 'pods', name: 'p' },
    ],
    ['GET', '/api/v1/namespaces/ns1/pods?watch=1', { verb: 'watch', namespace: 'ns1', name: '' }],
    ['GET', '/api/v1/watch/namespaces/ns1/pods', { verb: 'watch', namespace: 'ns1', resource: 'pods' }],
    ['POST', '/apis/apps/v1/namespaces/d/deployments', { verb: 'create', apiGroup: 'apps', resource: 'deployments' }],
    ['PUT', '/apis/apps/v1/namespaces/d/deployments/web/scale', { verb: 'update', name: 'web', subresource: 'scale' }],
    [
      'PATCH',
      '/api/v1/nodes/n1/status',
      { verb: 'patch', resource: 'nodes', name: 'n1', subresource: 'status', namespace: '' },
    ],
    ['DELETE', '/api/v1/namespaces/x/configmaps', { verb: 'deletecollection', resource: 'configmaps' }],
    ['DELETE', '/api/v1/namespaces/x', { verb: 'delete', resource: 'namespaces', name: 'x', namespace: 'x' }],
    ['GET', '/api/v1/namespaces', { verb: 'list', resource: 'namespaces', namespace: '' }],
  ];
  for (const [method, url, want] of cases) {
    const got = parseRequestInfo(method, url);
    assert.equal(got.isResourceRequest, true, url);
    for (const [k, v] of Object.entries(want)) assert.equal(got[k as keyof typeof got], v, `${method} ${url}: ${k}`);
  }
});

test('non-resource paths are not resource requests', () => {
  for (const url of [
    '/version',
    '/api',
    '/apis',
    '/apis/apps',
    '/api/v1',
    '/apis/apps/v1',
    '/healthz',
    '/openapi/v2',
  ]) {
    assert.equal(parseRequestInfo('GET', url).isResourceRequest, false, url);
  }
});
