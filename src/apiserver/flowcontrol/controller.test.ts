import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { UserInfo } from '../authentication/index.js';
import { FakeClock } from '../../clock/index.js';
import { parseRequestInfo } from '../request_info.js';
import type { APFController } from './controller.js';
import { bootstrappedController as controller } from './testing.js';

const node: UserInfo = { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };

const seatsOf = (c: APFController, schema: string) => c.flows().find((f) => f.flowSchema === schema)!.executingSeats;

test("a write's executing seats include its final seats until they are given back, as upstream's gauge", () => {
  const clock = new FakeClock();
  const c = controller(clock);
  const cl = c.classify(parseRequestInfo('PUT', '/api/v1/nodes/n1/status'), node);
  assert.equal(cl.schema.name, 'system-node-high');
  const a = c.admit(cl, { initialSeats: 1, finalSeats: 3, additionalLatencyMs: 5 }, () => undefined);
  assert.ok(typeof a === 'object' && !(a instanceof Promise));
  assert.equal(seatsOf(c, 'system-node-high'), 1);
  a.finish();
  assert.equal(seatsOf(c, 'system-node-high'), 3, 'the final stage holds 3 seats');
  a.finish();
  assert.equal(seatsOf(c, 'system-node-high'), 3, 'a second finish changes nothing');
  clock.step(5);
  assert.equal(seatsOf(c, 'system-node-high'), 0);
});

test('a write without final seats is done when it returns', () => {
  const c = controller(new FakeClock());
  const cl = c.classify(parseRequestInfo('PUT', '/api/v1/nodes/n1/status'), node);
  const a = c.admit(cl, { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 }, () => undefined);
  assert.ok(typeof a === 'object' && !(a instanceof Promise));
  a.finish();
  assert.equal(seatsOf(c, 'system-node-high'), 0);
});

test("the gauges' limits: nominal, and current after borrowing, summing to the server's seats", () => {
  const c = controller(new FakeClock());
  const limits = c.limits().filter((l) => l.priorityLevel !== 'exempt');
  const node = limits.find((l) => l.priorityLevel === 'node-high')!;
  assert.equal(node.nominal, Math.ceil((600 * 40) / 245));
  for (const l of limits) assert.ok(l.current >= 1, l.priorityLevel);
  const sum = (k: 'nominal' | 'current') => limits.reduce((a, l) => a + l[k], 0);
  assert.ok(Math.abs(sum('current') - sum('nominal')) <= limits.length / 2);
});
