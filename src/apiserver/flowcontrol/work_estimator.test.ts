import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRequestInfo } from '../request_info.js';
import { estimateWork, maxSeatsOf, type ResourceStats } from './work_estimator.js';

function stats(objects: number | undefined, watchers: number, fromStorage: boolean): ResourceStats {
  return { objectCount: () => objects, watchCount: () => watchers, listFromStorage: () => fromStorage };
}

test('a LIST from the watch cache costs a seat per 100 stored objects, capped', () => {
  const list = parseRequestInfo('GET', '/api/v1/pods');
  assert.equal(estimateWork(list, stats(250, 0, false), 10).initialSeats, 3);
  assert.equal(estimateWork(list, stats(75_000, 0, false), 10).initialSeats, 10);
  assert.equal(estimateWork(list, stats(75_000, 0, false), 4).initialSeats, 4);
  assert.equal(estimateWork(list, stats(0, 0, false), 10).initialSeats, 1);
  // A limit does not help when the cache walks everything.
  assert.equal(
    estimateWork(parseRequestInfo('GET', '/api/v1/pods?limit=50'), stats(500, 0, false), 10).initialSeats,
    5,
  );
});

test('a LIST from storage costs twice its limit, or stored plus limit with a selector', () => {
  assert.equal(
    estimateWork(parseRequestInfo('GET', '/api/v1/pods?limit=100'), stats(5000, 0, true), 10).initialSeats,
    2,
  );
  assert.equal(
    estimateWork(parseRequestInfo('GET', '/api/v1/pods?limit=100&labelSelector=a%3Db'), stats(500, 0, true), 10)
      .initialSeats,
    6,
  );
});

test('a LIST or initial-events WATCH pinned to one object by metadata.name costs one seat, as upstream', () => {
  const big = stats(60_000, 0, false);
  const one = '/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3Ds1&resourceVersion=0';
  assert.equal(estimateWork(parseRequestInfo('GET', one), big, 10).initialSeats, 1);
  assert.equal(estimateWork(parseRequestInfo('GET', one), stats(60_000, 0, true), 10).initialSeats, 1);
  const watchOne = '/api/v1/namespaces/ns/secrets?watch=true&sendInitialEvents=true&fieldSelector=metadata.name%3Ds1';
  assert.equal(estimateWork(parseRequestInfo('GET', watchOne), big, 10).initialSeats, 1);
  // Any other selector still walks everything the cache holds.
  const other = '/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name!%3Ds1';
  assert.equal(estimateWork(parseRequestInfo('GET', other), big, 10).initialSeats, 10);
  const typed = '/api/v1/namespaces/ns/secrets?fieldSelector=type%3Dopaque';
  assert.equal(estimateWork(parseRequestInfo('GET', typed), big, 10).initialSeats, 10);
});

test('an untracked resource lists at the minimum, as upstream when the count is not found', () => {
  assert.equal(estimateWork(parseRequestInfo('GET', '/api/v1/events'), stats(undefined, 0, true), 10).initialSeats, 1);
});

test('a write pays a seat per 10 watchers for 5 ms per event; past the cap, fewer seats for longer', () => {
  const put = parseRequestInfo('PUT', '/api/v1/namespaces/ns/configmaps/c');
  const none = { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 };
  assert.deepEqual(estimateWork(put, stats(1, 0, false), 10), none);
  // Under one seat's worth of watchers (upstream's WatchesPerSeat) the write holds nothing after it returns.
  assert.deepEqual(estimateWork(put, stats(1, 9, false), 10), none);
  assert.deepEqual(estimateWork(put, stats(1, 10, false), 10), {
    initialSeats: 1,
    finalSeats: 1,
    additionalLatencyMs: 5,
  });
  assert.deepEqual(estimateWork(put, stats(1, 25, false), 10), {
    initialSeats: 1,
    finalSeats: 3,
    additionalLatencyMs: 5,
  });
  assert.deepEqual(estimateWork(put, stats(1, 2500, false), 10), {
    initialSeats: 1,
    finalSeats: 10,
    additionalLatencyMs: 125,
  });
});

test('a WATCH costs one seat, a list’s worth with sendInitialEvents=true; a GET one', () => {
  assert.equal(estimateWork(parseRequestInfo('GET', '/api/v1/pods?watch=1'), stats(900, 0, false), 10).initialSeats, 1);
  assert.equal(
    estimateWork(parseRequestInfo('GET', '/api/v1/pods?watch=1&sendInitialEvents=true'), stats(900, 0, false), 10)
      .initialSeats,
    9,
  );
  assert.equal(
    estimateWork(parseRequestInfo('GET', '/api/v1/namespaces/ns/pods/p'), stats(900, 0, false), 10).initialSeats,
    1,
  );
});

test("a level's cap is min(10, 15% of its limit, limit / handSize)", () => {
  assert.equal(maxSeatsOf(245, 6), 10);
  assert.equal(maxSeatsOf(40, 6), 6);
  assert.equal(maxSeatsOf(13, 6), 2);
  assert.equal(maxSeatsOf(2, 0), 1);
});
