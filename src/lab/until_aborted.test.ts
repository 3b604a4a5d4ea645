import { test } from 'node:test';
import assert from 'node:assert/strict';
import { untilAborted } from './until_aborted.js';

test('the work settles as it would when nothing aborts', async () => {
  const ac = new AbortController();
  assert.equal(await untilAborted(Promise.resolve(7), ac.signal), 7);
  await assert.rejects(untilAborted(Promise.reject(new Error('boom')), ac.signal), /boom/);
});

test('an abort rejects at once with its reason, although the work never settles', async () => {
  const ac = new AbortController();
  const never = new Promise<number>(() => undefined);
  const waiting = untilAborted(never, ac.signal);
  ac.abort(new Error('server exited during the run'));
  await assert.rejects(waiting, /server exited during the run/);
  await assert.rejects(untilAborted(never, ac.signal), /server exited during the run/, 'already aborted');
});
