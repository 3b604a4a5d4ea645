import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isNotSentError, memberPolicy, PassOverGroup } from './client.js';

type Execute = (fn: () => Promise<string>) => Promise<string>;

/** A group of `n` members on a clock the test moves, with a counter of calls that reached a member. */
function members(n: number) {
  const clock = { now: 0 };
  const group = new PassOverGroup(() => clock.now);
  const policies = Array.from({ length: n }, () => memberPolicy(group) as unknown as { execute: Execute });
  let calls = 0;
  const call = (result: () => Promise<string>) => () => {
    calls++;
    return result();
  };
  const fail = (p: { execute: Execute }, message: string) =>
    p.execute(call(() => Promise.reject(new Error(message)))).catch((e: Error) => e);
  return { clock, policies, call, fail, calls: () => calls };
}

test('a member a call could not reach is passed over for 5 s; one that answered with an error is not', async () => {
  const { clock, policies, call, fail, calls } = members(3);
  const policy = policies[0]!;
  assert.match(String(await fail(policy, '14 UNAVAILABLE: etcdserver: no leader')), /no leader/);
  // etcd's own timeout is an answer too.
  await fail(policy, '2 UNKNOWN: context deadline exceeded');
  assert.equal(await policy.execute(call(() => Promise.resolve('ok'))), 'ok', 'an answer, even an error, keeps it');
  await fail(policy, '4 DEADLINE_EXCEEDED: Deadline exceeded, Waiting for LB pick');
  const before = calls();
  clock.now = 4_999;
  const skipped = await policy.execute(call(() => Promise.resolve('ok'))).catch((e: Error) => e);
  assert.equal(calls(), before, 'not called while passed over');
  assert.ok(isNotSentError(skipped), 'the pool reads the refusal as an unsent call and tries the next member');
  clock.now = 5_001;
  assert.equal(await policy.execute(call(() => Promise.resolve('ok'))), 'ok', 'tried again after 5 s');
});

test('a member silent until a sent call’s deadline is passed over too', async () => {
  const { clock, policies, call, fail, calls } = members(3);
  await fail(policies[1]!, '4 DEADLINE_EXCEEDED: Deadline exceeded');
  const before = calls();
  clock.now = 1_000;
  const skipped = await policies[1]!.execute(call(() => Promise.resolve('ok'))).catch((e: Error) => e);
  assert.equal(calls(), before, 'not called while passed over');
  assert.ok(isNotSentError(skipped));
  assert.equal(await policies[0]!.execute(call(() => Promise.resolve('ok'))), 'ok', 'the others still serve');
});

test('never every member: with all of them silent, calls go on trying them', async () => {
  const { clock, policies, call, fail, calls } = members(3);
  await fail(policies[0]!, '4 DEADLINE_EXCEEDED: Deadline exceeded');
  await fail(policies[1]!, '4 DEADLINE_EXCEEDED: Deadline exceeded');
  clock.now = 100;
  let before = calls();
  await policies[0]!.execute(call(() => Promise.resolve('ok'))).catch(() => undefined);
  assert.equal(calls(), before, 'member 0 is passed over while member 2 is not');
  await fail(policies[2]!, '4 DEADLINE_EXCEEDED: Deadline exceeded');
  clock.now = 200;
  for (const p of policies) {
    before = calls();
    assert.equal(await p.execute(call(() => Promise.resolve('ok'))), 'ok');
    assert.equal(calls(), before + 1, 'every member passed over: each is tried');
  }
});
