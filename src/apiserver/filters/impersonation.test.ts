import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import type { Attributes } from '../authorization/index.js';
import { parseRequestInfo } from '../request_info.js';
import { impersonatedUser, impersonationRequests, withImpersonation } from './impersonation.js';

test('headers become impersonation requests in upstream order; a ServiceAccount user gets its groups', () => {
  assert.equal(impersonationRequests({ authorization: 'x' }), undefined);
  const reqs = impersonationRequests({
    'impersonate-user': 'system:serviceaccount:ns:builder',
    'impersonate-extra-scopes%2fa': ['one', 'two'],
    'impersonate-uid': 'u-1',
  })!;
  assert.deepEqual(
    reqs.map((r) => [r.resource, r.name, r.namespace ?? '', r.extraKey ?? '']),
    [
      ['serviceaccounts', 'builder', 'ns', ''],
      ['userextras', 'one', '', 'scopes/a'],
      ['userextras', 'two', '', 'scopes/a'],
      ['uids', 'u-1', '', ''],
    ],
  );
  assert.deepEqual(impersonatedUser(reqs), {
    username: 'system:serviceaccount:ns:builder',
    uid: 'u-1',
    groups: ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated'],
    extra: { 'scopes/a': ['one', 'two'] },
  });
  assert.deepEqual(
    impersonatedUser(impersonationRequests({ 'impersonate-user': 'jane', 'impersonate-group': ['a', 'b'] })!),
    {
      username: 'jane',
      groups: ['a', 'b', 'system:authenticated'],
    },
  );
  assert.deepEqual(impersonatedUser(impersonationRequests({ 'impersonate-user': 'system:anonymous' })!).groups, [
    'system:unauthenticated',
  ]);
  assert.throws(
    () => impersonationRequests({ 'impersonate-group': 'a' }),
    (e: { code?: number; message?: string }) => e.code === 500 && /without impersonating a user/.test(e.message ?? ''),
  );
});

test('the caller needs impersonate on every part; the request then runs as the impersonated user', async () => {
  const asked: Attributes[] = [];
  const filter = withImpersonation({
    authorize: (a) => {
      asked.push(a);
      return { decision: a.resource === 'groups' && a.name === 'admins' ? 'noOpinion' : 'allow', reason: '' };
    },
  });
  let seen: string | undefined;
  const handler = filter(async (_req, _res, info) => void (seen = info.user?.username));
  const info = () => ({
    ...parseRequestInfo('GET', '/api/v1/pods'),
    user: { username: 'alice', groups: ['system:authenticated'] },
  });
  const req = (headers: Record<string, string>) =>
    ({ headers, rawHeaders: Object.entries(headers).flat() }) as unknown as IncomingMessage;
  await handler(req({ 'impersonate-user': 'jane', 'impersonate-group': 'devs' }), {} as never, info());
  assert.equal(seen, 'jane');
  assert.deepEqual(
    asked.map((a) => [a.verb, a.resource, a.name, a.user.username]),
    [
      ['impersonate', 'users', 'jane', 'alice'],
      ['impersonate', 'groups', 'devs', 'alice'],
    ],
  );
  await assert.rejects(
    handler(req({ 'impersonate-user': 'jane', 'impersonate-group': 'admins' }), {} as never, info()),
    (e: { code?: number; message?: string }) =>
      e.code === 403 &&
      e.message ===
        'groups "admins" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope',
  );
});
