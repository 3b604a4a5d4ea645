import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { armFailpoints, disarmFailpoints, failpoint, failpointsEnabled, hitSync, parseAction } from './failpoint.js';

afterEach(() => disarmFailpoints());

test('actions parse with their skip count, argument and firing limit', () => {
  assert.deepEqual(parseAction('panic'), { skip: 0, times: Infinity, action: { kind: 'panic' } });
  assert.deepEqual(parseAction('12+sleep(250)'), { skip: 12, times: Infinity, action: { kind: 'sleep', ms: 250 } });
  assert.deepEqual(parseAction('3+skip*1'), { skip: 3, times: 1, action: { kind: 'verb', verb: 'skip' } });
  assert.deepEqual(parseAction('drop-unsynced'), { skip: 0, times: Infinity, action: { kind: 'drop-unsynced' } });
  assert.throws(() => parseAction('sleep'), /needs a duration/);
  assert.throws(() => parseAction('panic(3)'), /only sleep takes an argument/);
  assert.throws(() => parseAction('Panic!'), /cannot parse/);
});

test('nothing is armed by default and an unarmed point never fires', () => {
  assert.equal(failpointsEnabled, false);
  assert.equal(failpoint('sqlite/beforeCommit'), undefined);
});

test('an armed point passes its first N evaluations, then fires at most M times', () => {
  armFailpoints('a=2+error*2; b=sleep(1)');
  assert.equal(failpointsEnabled, true);
  const seen = Array.from({ length: 6 }, () => failpoint('a')?.kind ?? 'pass');
  assert.deepEqual(seen, ['pass', 'pass', 'error', 'error', 'pass', 'pass']);
  assert.equal(failpoint('b')?.kind, 'sleep');
  assert.equal(failpoint('c'), undefined);
});

test('an error action throws a FailpointError naming the point', () => {
  armFailpoints('p=error');
  assert.throws(() => hitSync('p'), { name: 'FailpointError', message: /failpoint p injected an error/ });
});

test('a malformed spec is refused as a whole entry', () => {
  assert.throws(() => armFailpoints('noequals'), /is not name=action/);
});
