import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareQuantities, milliValue, parseQuantity, quantityValue, tryParseQuantity } from './quantity.js';

test('parses decimal-SI, binary-SI and exponent suffixes', () => {
  assert.equal(parseQuantity('100m'), 0.1);
  assert.equal(parseQuantity('2'), 2);
  assert.equal(parseQuantity('1Gi'), 1024 ** 3);
  assert.equal(parseQuantity('500Mi'), 500 * 1024 ** 2);
  assert.equal(parseQuantity('1e3'), 1000);
  assert.equal(parseQuantity('1E-3'), 0.001);
  assert.equal(parseQuantity('1.5k'), 1500);
  assert.equal(parseQuantity('.5'), 0.5);
  assert.equal(parseQuantity('-2M'), -2e6);
  assert.equal(parseQuantity(3), 3);
});

test('rejects malformed quantities with upstream messages', () => {
  assert.throws(() => parseQuantity('1GB'), /unable to parse quantity's suffix|quantities must match/);
  assert.throws(() => parseQuantity('abc'), /quantities must match the regular expression/);
  assert.throws(() => parseQuantity(''), /quantities must match/);
  assert.throws(() => parseQuantity(' 1'), /quantities must match/);
  assert.equal(tryParseQuantity('1Xi'), undefined);
  assert.equal(tryParseQuantity({}), undefined);
});

test('milli and integer values round up exactly', () => {
  assert.equal(milliValue('0.1'), 100);
  assert.equal(milliValue('250m'), 250);
  assert.equal(milliValue('1'), 1000);
  assert.equal(milliValue('1n'), 1);
  assert.equal(quantityValue('1Ki'), 1024);
  assert.equal(quantityValue('0.5'), 1);
});

test('compares across suffixes', () => {
  assert.equal(compareQuantities('1', '1000m'), 0);
  assert.equal(compareQuantities('1Gi', '1G'), 1);
  assert.equal(compareQuantities('500m', '1'), -1);
});
