import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCronSchedule } from './cron.js';

const at = (iso: string): number => Date.parse(iso);
const iso = (t: number | undefined): string | undefined => (t === undefined ? undefined : new Date(t).toISOString());
const next = (spec: string, from: string, zone?: string): string | undefined =>
  iso(parseCronSchedule(spec, zone).next(at(from)));

test('five-field schedules step to the next matching minute, strictly after the given time', () => {
  assert.equal(next('*/1 * * * *', '2024-01-01T00:00:00Z'), '2024-01-01T00:01:00.000Z');
  assert.equal(next('*/1 * * * *', '2024-01-01T00:00:30.5Z'), '2024-01-01T00:01:00.000Z');
  assert.equal(next('*/15 * * * *', '2024-01-01T00:16:00Z'), '2024-01-01T00:30:00.000Z');
  assert.equal(next('5 4 * * *', '2024-01-01T04:05:00Z'), '2024-01-02T04:05:00.000Z');
  assert.equal(next('0 0 29 2 *', '2024-03-01T00:00:00Z'), '2028-02-29T00:00:00.000Z');
  assert.equal(next('0 9 * jan-mar MON', '2024-03-30T00:00:00Z'), '2025-01-06T09:00:00.000Z');
  assert.equal(next('30 6-16/4 * * 1-5', '2024-01-01T11:00:00Z'), '2024-01-01T14:30:00.000Z');
  assert.equal(next('0 0 1,15 * *', '2024-01-02T00:00:00Z'), '2024-01-15T00:00:00.000Z');
});

test('day-of-month and day-of-week are ORed unless one is a star, as robfig/cron', () => {
  // 2024-01-03 is a Wednesday: "13th or any Friday" → Friday the 5th.
  assert.equal(next('0 0 13 * 5', '2024-01-03T00:00:00Z'), '2024-01-05T00:00:00.000Z');
  // With dow "*", only the 13th matches.
  assert.equal(next('0 0 13 * *', '2024-01-03T00:00:00Z'), '2024-01-13T00:00:00.000Z');
  // "*/2" in dow is a step, which drops the star bit, so it ORs with dom: Thursday (4) the 4th.
  assert.equal(next('0 0 13 * */2', '2024-01-03T00:00:00Z'), '2024-01-04T00:00:00.000Z');
});

test('descriptors: @yearly @annually @monthly @weekly @daily @midnight @hourly @every', () => {
  const from = '2024-05-15T10:20:00Z';
  assert.equal(next('@yearly', from), '2025-01-01T00:00:00.000Z');
  assert.equal(next('@annually', from), '2025-01-01T00:00:00.000Z');
  assert.equal(next('@monthly', from), '2024-06-01T00:00:00.000Z');
  assert.equal(next('@weekly', from), '2024-05-19T00:00:00.000Z');
  assert.equal(next('@daily', from), '2024-05-16T00:00:00.000Z');
  assert.equal(next('@midnight', from), '2024-05-16T00:00:00.000Z');
  assert.equal(next('@hourly', from), '2024-05-15T11:00:00.000Z');
  assert.equal(next('@every 1h30m', '2024-05-15T10:20:00.250Z'), '2024-05-15T11:50:00.000Z');
});

test('invalid schedules fail with robfig/cron messages', () => {
  const err = (spec: string): string => {
    try {
      parseCronSchedule(spec);
    } catch (e) {
      return (e as Error).message;
    }
    return 'no error';
  };
  assert.equal(err(''), 'empty spec string');
  assert.equal(err('bad'), 'expected exactly 5 fields, found 1: [bad]');
  assert.equal(err('* * * * * *'), 'expected exactly 5 fields, found 6: [* * * * * *]');
  assert.equal(err('60 * * * *'), 'end of range (60) above maximum (59): 60');
  assert.equal(err('* * 0 * *'), 'beginning of range (0) below minimum (1): 0');
  assert.equal(err('* * * * 7'), 'end of range (7) above maximum (6): 7');
  assert.equal(err('5-2 * * * *'), 'beginning of range (5) beyond end of range (2): 5-2');
  assert.equal(err('*/0 * * * *'), 'step of range should be a positive number: */0');
  assert.equal(err('1-2-3 * * * *'), 'too many hyphens: 1-2-3');
  assert.equal(err('x * * * *'), 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax');
  assert.equal(err('@fortnightly'), 'unrecognized descriptor: @fortnightly');
  assert.equal(err('TZ=Mars/Olympus * * * * *'), 'provided bad location Mars/Olympus: unknown time zone Mars/Olympus');
  assert.match(err('@every 5'), /failed to parse duration/);
});

test('a time zone moves the wall clock: 09:00 in New York is 14:00Z in winter and 13:00Z in summer', () => {
  assert.equal(next('0 9 * * *', '2024-01-10T00:00:00Z', 'America/New_York'), '2024-01-10T14:00:00.000Z');
  assert.equal(next('0 9 * * *', '2024-07-10T00:00:00Z', 'America/New_York'), '2024-07-10T13:00:00.000Z');
  assert.equal(next('TZ=Asia/Tokyo 0 9 * * *', '2024-07-10T00:00:00Z'), '2024-07-11T00:00:00.000Z');
  assert.equal(next('CRON_TZ=Asia/Kolkata 30 5 * * *', '2024-07-10T00:00:00Z'), '2024-07-11T00:00:00.000Z');
});

test('DST: a time in the spring-forward gap is skipped, the repeated fall-back hour runs in both offsets', () => {
  // 2024-03-10 02:00 does not exist in New York; robfig skips to the next day's 02:30.
  assert.equal(next('30 2 * * *', '2024-03-10T05:00:00Z', 'America/New_York'), '2024-03-11T06:30:00.000Z');
  // 2024-11-03 01:30 happens twice (EDT then EST); robfig steps absolute minutes, so both match.
  assert.equal(next('30 1 * * *', '2024-11-03T04:00:00Z', 'America/New_York'), '2024-11-03T05:30:00.000Z');
  assert.equal(next('30 1 * * *', '2024-11-03T05:30:00Z', 'America/New_York'), '2024-11-03T06:30:00.000Z');
  // Every hour across spring-forward: 01:00 EST (06:00Z), then 03:00 EDT (07:00Z).
  assert.equal(next('0 * * * *', '2024-03-10T06:00:00Z', 'America/New_York'), '2024-03-10T07:00:00.000Z');
  // Daily at midnight where midnight itself is skipped (Santiago, 2024-09-08 00:00 → 01:00).
  assert.equal(next('0 0 * * *', '2024-09-07T05:00:00Z', 'America/Santiago'), '2024-09-09T03:00:00.000Z');
});

test('an impossible date yields no activation within five years', () => {
  assert.equal(parseCronSchedule('0 0 31 2 *').next(at('2024-01-01T00:00:00Z')), undefined);
});
