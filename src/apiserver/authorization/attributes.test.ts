import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRequestInfo } from '../request_info.js';
import { attributesOf } from './attributes.js';

const user = { username: 'u', groups: [] };
const of = (method: string, url: string) => attributesOf(parseRequestInfo(method, url), user);

test('a list or watch pinned to metadata.name is named, as upstream names it; other requests are not', () => {
  const cases: [string, string, string, string, string | undefined][] = [
    [
      'GET',
      '/api/v1/namespaces/ns/secrets?watch=true&fieldSelector=metadata.name%3Ds1',
      'watch',
      's1',
      'metadata.name=s1',
    ],
    [
      'GET',
      '/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3D%3Ds1,type%3Dx',
      'list',
      's1',
      'metadata.name==s1,type=x',
    ],
    ['GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dn1', 'list', '', 'spec.nodeName=n1'],
    ['GET', '/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name!%3Ds1', 'list', '', 'metadata.name!=s1'],
    ['GET', '/api/v1/namespaces/ns/secrets?fieldSelector=%3D%3D%3D', 'list', '', '==='],
    ['GET', '/api/v1/namespaces/ns/secrets/s2?fieldSelector=metadata.name%3Ds1', 'get', 's2', undefined],
    ['GET', '/api/v1/namespaces/ns/secrets', 'list', '', undefined],
  ];
  for (const [method, url, verb, name, selector] of cases) {
    const a = of(method, url);
    assert.deepEqual([a.verb, a.name, a.fieldSelector], [verb, name, selector], url);
  }
});
