import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UNSECURED_USER } from '../authentication/index.js';
import { parseRequestInfo } from '../request_info.js';
import { MaxInFlight } from './max_inflight.js';

test('mutating and read-only requests have separate limits, watches are exempt, and release frees a slot', () => {
  const m = new MaxInFlight(1, 1);
  const get = parseRequestInfo('GET', '/api/v1/pods/x');
  const post = parseRequestInfo('POST', '/api/v1/namespaces/d/pods');
  const watch = parseRequestInfo('GET', '/api/v1/pods?watch=true');
  const r1 = m.acquire(get);
  const w1 = m.acquire(post);
  assert.throws(
    () => m.acquire(get),
    (e: { code?: number; status?: { details?: { retryAfterSeconds?: number } } }) =>
      e.code === 429 && e.status?.details?.retryAfterSeconds === 1,
  );
  assert.throws(
    () => m.acquire(post),
    (e: { code?: number }) => e.code === 429,
  );
  for (let i = 0; i < 10; i++) m.acquire(watch);
  r1();
  r1();
  const r2 = m.acquire(get);
  r2();
  w1();
  m.acquire(post)();
});

test('an authenticated system:masters is served when the pool is full, as upstream, while the plain port superuser is limited', () => {
  const m = new MaxInFlight(1, 1);
  const admin = { username: 'system:admin', groups: ['system:masters', 'system:authenticated'] };
  const sa = { username: 'system:serviceaccount:d:a', groups: ['system:serviceaccounts', 'system:authenticated'] };
  const get = { ...parseRequestInfo('GET', '/api/v1/pods/x'), user: sa };
  const post = { ...parseRequestInfo('POST', '/api/v1/namespaces/d/pods'), user: sa };
  m.acquire(get);
  m.acquire(post);
  assert.throws(
    () => m.acquire(get),
    (e: { code?: number }) => e.code === 429,
  );
  for (let i = 0; i < 5; i++) {
    m.acquire({ ...get, user: admin });
    m.acquire({ ...post, user: admin });
  }
  assert.throws(
    () => m.acquire(post),
    (e: { code?: number }) => e.code === 429,
  );
  // The plain port's superuser is limited, as upstream's insecure port limited it before authentication.
  assert.throws(
    () => m.acquire({ ...post, user: UNSECURED_USER }),
    (e: { code?: number }) => e.code === 429,
  );
});

test('non-resource requests count by their method: GET is read-only, POST and HEAD are mutating, as upstream', () => {
  const m = new MaxInFlight(1, 1);
  const release = m.acquire(parseRequestInfo('GET', '/healthz'));
  assert.throws(
    () => m.acquire(parseRequestInfo('GET', '/api/v1/pods/x')),
    (e: { code?: number }) => e.code === 429,
    'the read-only slot is the non-resource GET',
  );
  release();
  const mut = m.acquire(parseRequestInfo('HEAD', '/livez'));
  assert.throws(
    () => m.acquire(parseRequestInfo('POST', '/api/v1/namespaces/d/pods')),
    (e: { code?: number }) => e.code === 429,
    'HEAD on a non-resource path is not in get, list or watch',
  );
  mut();
  m.acquire(parseRequestInfo('POST', '/apis/example/v1'));
  for (let i = 0; i < 3; i++) m.acquire(parseRequestInfo('POST', '/api/v1/namespaces/d/pods/p/exec'));
});
