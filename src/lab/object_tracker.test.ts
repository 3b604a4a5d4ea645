import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TargetPolls } from './object_tracker.js';

test('while a phase waits, the lab LISTs only the kinds still short, then every kind once to confirm them together', () => {
  const polls = new TargetPolls(['Deployment', 'ConfigMap', 'Secret']);
  assert.deepEqual(polls.next(), ['Deployment', 'ConfigMap', 'Secret']);
  assert.equal(polls.record(polls.next(), new Set(['Deployment', 'ConfigMap'])), false);
  assert.deepEqual(polls.next(), ['Deployment', 'ConfigMap'], 'Secret reached: not LISTed again');
  assert.equal(polls.record(['Deployment', 'ConfigMap'], new Set(['Deployment'])), false);
  assert.deepEqual(polls.next(), ['Deployment']);
  assert.equal(polls.confirming, false);
  assert.equal(polls.record(['Deployment'], new Set()), false, 'a LIST of one kind confirms nothing');
  assert.equal(polls.confirming, true);
  assert.deepEqual(polls.next(), ['Deployment', 'ConfigMap', 'Secret']);
  // A kind that fell back below its target in the confirming LIST is polled again on its own.
  assert.equal(polls.record(polls.next(), new Set(['ConfigMap'])), false);
  assert.deepEqual(polls.next(), ['ConfigMap']);
  assert.equal(polls.record(['ConfigMap'], new Set()), false);
  assert.equal(polls.record(polls.next(), new Set()), true);
  // A first LIST of every kind that finds none short needs no second one.
  const quick = new TargetPolls(['Service', 'Job']);
  assert.equal(quick.record(quick.next(), new Set()), true);
});
