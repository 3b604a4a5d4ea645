import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import {
  armedFailpoints,
  armFailpoints,
  clearFailpoint,
  disarmFailpoints,
  failpoint,
  failpointsEnabled,
  hitSync,
  parseAction,
  setFailpoint,
} from './failpoint.js';

afterEach(() => disarmFailpoints());

test('actions parse with their skip count, argument and firing limit', () => {
  assert.deepEqual(parseAction('panic'), { skip: 0, times: Infinity, text: 'panic', action: { kind: 'panic' } });
  assert.deepEqual(parseAction('12+sleep(250)'), {
    skip: 12,
    times: Infinity,
    text: '12+sleep(250)',
    action: { kind: 'sleep', ms: 250 },
  });
  assert.deepEqual(parseAction('3+skip*1'), {
    skip: 3,
    times: 1,
    text: '3+skip*1',
    action: { kind: 'verb', verb: 'skip' },
  });
  assert.deepEqual(parseAction(' drop-unsynced'), {
    skip: 0,
    times: Infinity,
    text: 'drop-unsynced',
    action: { kind: 'drop-unsynced' },
  });
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

test('one point is armed and disarmed at run time, and the armed set reads back as given', () => {
  setFailpoint('cacher/dispatch/pods', '3+skip*1');
  assert.equal(failpointsEnabled, true);
  assert.deepEqual(armedFailpoints(), { 'cacher/dispatch/pods': '3+skip*1' });
  assert.throws(() => setFailpoint('x', 'sleep'), /needs a duration/);
  assert.throws(() => setFailpoint('a b', 'panic'), /is not a failpoint name/);
  assert.equal(clearFailpoint('cacher/dispatch/pods'), true);
  assert.equal(clearFailpoint('cacher/dispatch/pods'), false);
  assert.equal(failpointsEnabled, false, 'with nothing armed every call site is off again');
});
