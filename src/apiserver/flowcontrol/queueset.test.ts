import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../clock/index.js';
import { QueueSet, type StartResult, type Ticket, type WorkEstimate } from './queueset.js';
import { Dealer, hashFlow } from './shuffle_sharding.js';

const ONE_SEAT: WorkEstimate = { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 };

/** Runs `ticket`'s request for `ms` of fake time, then finishes it. */
function serve(clock: FakeClock, r: StartResult, ms: number, onRun: () => void): void {
  const run = (t: Ticket): void => {
    onRun();
    clock.setTimeout(() => t.finish(), ms);
  };
  if ('ticket' in r) run(r.ticket);
  else if ('waiting' in r) void r.waiting.then((t) => typeof t !== 'string' && run(t));
}

test('two backlogged flows in one level share its seats equally although one sends 10x the other', async () => {
  const clock = new FakeClock();
  const qs = new QueueSet(clock, { queues: 64, handSize: 8, queueLengthLimit: 500 }, 10);
  const heavy = hashFlow('fs', 'heavy');
  const light = hashFlow('fs', 'light');
  const served = { heavy: 0, light: 0 };
  // Capacity: 10 seats of 10 ms each, one request per ms; the light flow alone offers all of that.
  for (let ms = 0; ms < 3000; ms++) {
    for (let i = 0; i < 10; i++) serve(clock, qs.start(heavy, ONE_SEAT, 0), 10, () => served.heavy++);
    serve(clock, qs.start(light, ONE_SEAT, 0), 10, () => served.light++);
    await Promise.resolve();
    clock.step(1);
    await Promise.resolve();
  }
  const total = served.heavy + served.light;
  assert.ok(total > 2500, `the level stayed busy: ${total}`);
  for (const [flow, n] of Object.entries(served))
    assert.ok(Math.abs(n / total - 0.5) <= 0.1, `${flow} got ${n} of ${total} seats, not within 20% of half`);
});

test('shuffle sharding deals a flow the same hand of distinct queues every time', () => {
  const d = new Dealer(64, 6);
  const h = hashFlow('service-accounts', 'system:serviceaccount:ns:noisy');
  const hand = d.deal(h);
  assert.deepEqual(d.deal(h), hand);
  assert.equal(new Set(hand).size, 6);
  assert.ok(hand.every((c) => c >= 0 && c < 64));
  assert.notDeepEqual(d.deal(hashFlow('service-accounts', 'system:serviceaccount:ns:other')), hand);
  // All of a small deck: a permutation.
  assert.deepEqual([...new Dealer(4, 4).deal(h)].sort(), [0, 1, 2, 3]);
});

test('a full queue rejects, a waiting request times out, and a finished one lets the next in', async () => {
  const clock = new FakeClock();
  const qs = new QueueSet(clock, { queues: 1, handSize: 1, queueLengthLimit: 2 }, 1);
  const flow = hashFlow('fs', 'u');
  const first = qs.start(flow, ONE_SEAT, 1000);
  assert.ok('ticket' in first);
  const second = qs.start(flow, ONE_SEAT, 1000);
  const third = qs.start(flow, ONE_SEAT, 50);
  assert.ok('waiting' in second && 'waiting' in third);
  assert.deepEqual(qs.start(flow, ONE_SEAT, 1000), { rejected: 'queue-full' });
  assert.equal(qs.requestsWaiting, 2);
  clock.step(60);
  assert.equal(await third.waiting, 'time-out');
  first.ticket.finish();
  const t = await second.waiting;
  assert.ok(typeof t !== 'string');
  assert.equal(t.waitedMs, 60);
  assert.equal(qs.seatsInUse, 1);
  t.finish();
  assert.equal(qs.seatsInUse, 0);
});

test('a Reject level runs what fits and rejects the rest at once', () => {
  const clock = new FakeClock();
  const qs = new QueueSet(clock, { queues: 0, handSize: 0, queueLengthLimit: 0 }, 2);
  const a = qs.start(1, ONE_SEAT, 0);
  const b = qs.start(1, ONE_SEAT, 0);
  assert.ok('ticket' in a && 'ticket' in b);
  assert.deepEqual(qs.start(1, ONE_SEAT, 0), { rejected: 'concurrency-limit' });
  a.ticket.finish();
  assert.ok('ticket' in qs.start(1, ONE_SEAT, 0));
});

test('a write with watchers holds its final seats for the extra latency', () => {
  const clock = new FakeClock();
  const qs = new QueueSet(clock, { queues: 8, handSize: 2, queueLengthLimit: 10 }, 10);
  const r = qs.start(1, { initialSeats: 1, finalSeats: 3, additionalLatencyMs: 5 }, 0);
  assert.ok('ticket' in r);
  let released = 0;
  assert.equal(
    r.ticket.finish(() => released++),
    3,
    'finish says how many seats it holds',
  );
  assert.equal(qs.seatsInUse, 3);
  assert.equal(released, 0);
  clock.step(5);
  assert.equal(qs.seatsInUse, 0);
  assert.equal(released, 1, 'told once when they are back');
  assert.equal(r.ticket.finish(), 0, 'a second finish holds nothing');
});

test('final seats come back at their time even when the event loop has not run their timer', () => {
  const clock = new FakeClock();
  const qs = new QueueSet(clock, { queues: 8, handSize: 2, queueLengthLimit: 10 }, 3);
  const w = qs.start(1, { initialSeats: 1, finalSeats: 3, additionalLatencyMs: 5 }, 0);
  assert.ok('ticket' in w);
  w.ticket.finish();
  assert.equal(qs.seatsInUse, 3);
  clock.lag(4);
  const early = qs.start(2, ONE_SEAT, 0);
  assert.ok('waiting' in early, 'not due yet: the level is full');
  clock.lag(1);
  // Due, its timer not run: the next start gives the seats back, the waiting request runs, then the new one.
  const next = qs.start(3, ONE_SEAT, 0);
  assert.ok('ticket' in next, 'room after the waiting request was dispatched');
  assert.equal(qs.seatsInUse, 2, 'the hold was given back and both requests run');
  assert.equal(qs.requestsWaiting, 0);
  clock.step(0);
  assert.equal(qs.seatsInUse, 2, 'the late timer gives nothing back twice');
});

test('seats of a due hold go to the request already waiting, even when the new one is refused', () => {
  const clock = new FakeClock();
  const qs = new QueueSet(clock, { queues: 1, handSize: 1, queueLengthLimit: 1 }, 1);
  const w = qs.start(1, { initialSeats: 1, finalSeats: 1, additionalLatencyMs: 5 }, 0);
  assert.ok('ticket' in w);
  w.ticket.finish();
  const waiting = qs.start(2, ONE_SEAT, 0);
  assert.ok('waiting' in waiting);
  clock.lag(5);
  const third = qs.start(3, ONE_SEAT, 0);
  assert.ok('waiting' in third, 'the waiting request took the seat, the new one queues');
  assert.equal(qs.requestsExecuting, 1);
  assert.equal(qs.requestsWaiting, 1);
});
