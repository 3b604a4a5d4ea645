import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../../clock/index.js';
import { COMBINED_PREFIX, EventCorrelator } from './events_cache.js';
import { makeEvent, type CoreEvent } from './event.js';

const ref = { kind: 'ReplicaSet', apiVersion: 'apps/v1', namespace: 'ns', name: 'web-1', uid: 'u1' };
let seq = 0;
const ev = (clock: FakeClock, message: string, reason = 'SuccessfulCreate', name = ref.name): CoreEvent =>
  makeEvent({ ...ref, name }, 'Normal', reason, message, { component: 'replicaset-controller' }, clock.now(), seq++);

test('an identical event becomes a count patch on the first Event, keeping its name and firstTimestamp', () => {
  const clock = new FakeClock();
  const c = new EventCorrelator(clock);
  const first = c.correlate(ev(clock, 'Created pod: a'));
  assert.equal(first.action, 'create');
  clock.step(5_000);
  const second = c.correlate(ev(clock, 'Created pod: a'));
  assert.equal(second.action, 'patch');
  if (first.action !== 'create' || second.action !== 'patch') return;
  assert.equal(second.event.metadata.name, first.event.metadata.name);
  assert.equal(second.event.count, 2);
  assert.equal(second.event.firstTimestamp, first.event.firstTimestamp);
  assert.notEqual(second.event.lastTimestamp, first.event.lastTimestamp);
  assert.deepEqual(Object.keys(second.patch).sort(), ['count', 'lastTimestamp', 'message']);
});

test('past 10 distinct messages for one object and reason, events are combined into one Event', () => {
  const clock = new FakeClock();
  const c = new EventCorrelator(clock);
  const results = Array.from({ length: 14 }, (_, i) => c.correlate(ev(clock, `Created pod: p${i}`)));
  assert.deepEqual(
    results.slice(0, 9).map((r) => r.action),
    Array(9).fill('create'),
  );
  assert.equal(results[9]!.action, 'create');
  const combined = results[9]!;
  assert.ok(combined.action === 'create' && combined.event.message.startsWith(COMBINED_PREFIX));
  for (const [i, r] of results.slice(10).entries()) {
    assert.equal(r.action, 'patch');
    if (r.action === 'patch' && combined.action === 'create') {
      assert.equal(r.event.metadata.name, combined.event.metadata.name);
      assert.equal(r.event.count, i + 2);
      assert.equal(r.event.message, `${COMBINED_PREFIX}Created pod: p${i + 10}`);
    }
  }
});

test('the aggregation window resets after 10 minutes', () => {
  const clock = new FakeClock();
  const c = new EventCorrelator(clock);
  for (let i = 0; i < 12; i++) c.correlate(ev(clock, `m${i}`));
  clock.step(601_000);
  const r = c.correlate(ev(clock, 'fresh'));
  assert.ok(r.action === 'create' && !r.event.message.startsWith(COMBINED_PREFIX));
});

test('the spam filter passes a burst of 25 per object, then one per 5 minutes, and keeps objects apart', () => {
  const clock = new FakeClock();
  const c = new EventCorrelator(clock);
  const actions = Array.from({ length: 30 }, () => c.correlate(ev(clock, 'same', 'FailedCreate')).action);
  assert.equal(actions.filter((a) => a !== 'skip').length, 25);
  assert.deepEqual(actions.slice(25), Array(5).fill('skip'));
  assert.equal(c.correlate(ev(clock, 'same', 'FailedCreate', 'other-rs')).action, 'create');
  clock.step(300_000);
  assert.equal(c.correlate(ev(clock, 'same', 'FailedCreate')).action, 'patch');
  assert.equal(c.correlate(ev(clock, 'same', 'FailedCreate')).action, 'skip');
});
