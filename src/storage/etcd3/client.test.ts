import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isNotSentError, memberPolicy } from './client.js';

type Execute = (fn: () => Promise<string>) => Promise<string>;

test('a member a call could not reach is passed over for 5 s; one that answered with an error is not', async () => {
  let now = 0;
  const policy = memberPolicy(() => now) as unknown as { execute: Execute };
  let calls = 0;
  const call = (result: () => Promise<string>) => () => {
    calls++;
    return result();
  };
  const refused = await policy
    .execute(call(() => Promise.reject(new Error('14 UNAVAILABLE: etcdserver: no leader'))))
    .catch((e: Error) => e);
  assert.match(String(refused), /no leader/);
  assert.equal(await policy.execute(call(() => Promise.resolve('ok'))), 'ok', 'an answer, even an error, keeps it');
  await policy
    .execute(call(() => Promise.reject(new Error('4 DEADLINE_EXCEEDED: Deadline exceeded, Waiting for LB pick'))))
    .catch(() => undefined);
  const before = calls;
  now = 4_999;
  const skipped = await policy.execute(call(() => Promise.resolve('ok'))).catch((e: Error) => e);
  assert.equal(calls, before, 'not called while passed over');
  assert.ok(isNotSentError(skipped), 'the pool reads the refusal as an unsent call and tries the next member');
  now = 5_001;
  assert.equal(await policy.execute(call(() => Promise.resolve('ok'))), 'ok', 'tried again after 5 s');
});
