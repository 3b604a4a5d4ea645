import { test } from 'node:test';
import assert from 'node:assert/strict';
import { humanDuration, parseTime, shortHumanDuration, timestampSince } from './duration.js';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;
const y = 365 * d;

test('humanDuration matches apimachinery at every boundary', () => {
  const cases: [number, string][] = [
    [-2 * s, '<invalid>'],
    [-1999, '0s'], // up to 2s of clock skew is "now"
    [-1 * s, '0s'],
    [0, '0s'],
    [999, '0s'],
    [5 * s, '5s'],
    [119 * s, '119s'],
    [2 * m, '2m'],
    [3 * m + 2 * s, '3m2s'],
    [9 * m + 59 * s, '9m59s'],
    [10 * m, '10m'],
    [10 * m + 59 * s, '10m'],
    [179 * m, '179m'],
    [3 * h, '3h'],
    [5 * h + 4 * m, '5h4m'],
    [7 * h + 59 * m, '7h59m'],
    [8 * h, '8h'],
    [47 * h + 59 * m, '47h'],
    [2 * d, '2d'],
    [2 * d + 3 * h, '2d3h'],
    [7 * d + 23 * h, '7d23h'],
    [8 * d, '8d'],
    [2 * y - 1, '729d'],
    [2 * y, '2y'],
    [3 * y + 12 * d, '3y12d'],
    [8 * y - 1, '7y364d'],
    [8 * y, '8y'],
    [40 * y + 100 * d, '40y'],
  ];
  for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, `humanDuration(${ms})`);
});

test('shortHumanDuration uses a single unit', () => {
  const cases: [number, string][] = [
    [-2 * s, '<invalid>'],
    [-1 * s, '0s'],
    [59 * s, '59s'],
    [60 * s, '1m'],
    [59 * m + 59 * s, '59m'],
    [60 * m, '1h'],
    [23 * h + 59 * m, '23h'],
    [24 * h, '1d'],
    [364 * d, '364d'],
    [365 * d, '1y'],
    [4 * y + 200 * d, '4y'],
  ];
  for (const [ms, want] of cases) assert.equal(shortHumanDuration(ms), want, `shortHumanDuration(${ms})`);
});

test('zero, null and missing timestamps print as <unknown>', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  assert.equal(timestampSince(undefined, now), '<unknown>');
  assert.equal(timestampSince(null, now), '<unknown>');
  assert.equal(timestampSince('0001-01-01T00:00:00Z', now), '<unknown>');
  assert.equal(parseTime('not a time'), undefined);
  assert.equal(timestampSince('2024-12-31T23:59:55Z', now), '5s');
});
