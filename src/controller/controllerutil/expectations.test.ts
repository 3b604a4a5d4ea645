import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../../clock/index.js';
import { ControllerExpectations, EXPECTATIONS_TIMEOUT_MS, UIDTrackingControllerExpectations } from './expectations.js';

test('expectations hold a key until every expected creation is observed', () => {
  const e = new ControllerExpectations(new FakeClock());
  assert.equal(e.satisfiedExpectations('ns/rs'), true, 'no expectations: satisfied');
  e.expectCreations('ns/rs', 2);
  assert.equal(e.satisfiedExpectations('ns/rs'), false);
  e.creationObserved('ns/rs');
  assert.equal(e.satisfiedExpectations('ns/rs'), false);
  e.creationObserved('ns/rs');
  assert.equal(e.satisfiedExpectations('ns/rs'), true);
});

test('expectations expire after five minutes so a lost event cannot wedge a controller', () => {
  const clock = new FakeClock();
  const e = new ControllerExpectations(clock);
  e.expectDeletions('ns/rs', 1);
  clock.step(EXPECTATIONS_TIMEOUT_MS);
  assert.equal(e.satisfiedExpectations('ns/rs'), false);
  clock.step(1);
  assert.equal(e.satisfiedExpectations('ns/rs'), true);
});

test('UID-tracking expectations count each expected pod deletion once', () => {
  const e = new UIDTrackingControllerExpectations(new FakeClock());
  e.expectDeletionsOf('ns/rs', ['ns/a', 'ns/b']);
  e.deletionObservedOf('ns/rs', 'ns/a');
  e.deletionObservedOf('ns/rs', 'ns/a');
  e.deletionObservedOf('ns/rs', 'ns/other');
  assert.equal(e.satisfiedExpectations('ns/rs'), false, 'a seen twice and an unexpected pod do not count');
  e.deletionObservedOf('ns/rs', 'ns/b');
  assert.equal(e.satisfiedExpectations('ns/rs'), true);
  e.deleteExpectations('ns/rs');
  assert.equal(e.getUIDs('ns/rs'), undefined);
});
