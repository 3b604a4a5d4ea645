import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDuration } from './duration.js';

test('Go durations parse into milliseconds', () => {
  assert.equal(parseDuration('5m0s'), 300_000);
  assert.equal(parseDuration('1h0m0s'), 3_600_000);
  assert.equal(parseDuration('300ms'), 300);
  assert.equal(parseDuration('1.5s'), 1500);
  assert.equal(parseDuration('10'), 10_000);
  assert.equal(parseDuration('0'), 0);
  assert.throws(() => parseDuration('5 minutes'));
  assert.throws(() => parseDuration(''));
});
