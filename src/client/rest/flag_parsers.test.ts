import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Command, InvalidArgumentError } from 'commander';
import { durationFlag, nonNegativeIntFlag, nonNegativeNumberFlag, numberFlag } from './flag_parsers.js';

const invalid = (fn: () => unknown, message: RegExp): void => {
  assert.throws(fn, (err: unknown) => err instanceof InvalidArgumentError && message.test(err.message));
};

test('numberFlag takes any finite number and rejects the rest', () => {
  assert.equal(numberFlag('20'), 20);
  assert.equal(numberFlag('-1'), -1);
  assert.equal(numberFlag('0.5'), 0.5);
  invalid(() => numberFlag('abc'), /not a number: abc/);
  invalid(() => numberFlag('Infinity'), /not a number/);
});

test('nonNegativeNumberFlag takes fractions and zero, rejects negatives and non-numbers', () => {
  assert.equal(nonNegativeNumberFlag('0.1'), 0.1);
  assert.equal(nonNegativeNumberFlag('0'), 0);
  invalid(() => nonNegativeNumberFlag('-0.1'), /not a non-negative number: -0.1/);
  invalid(() => nonNegativeNumberFlag('NaN'), /not a non-negative number/);
});

test('nonNegativeIntFlag takes whole numbers only', () => {
  assert.equal(nonNegativeIntFlag('2500'), 2500);
  assert.equal(nonNegativeIntFlag('0'), 0);
  invalid(() => nonNegativeIntFlag('1.5'), /not a non-negative integer: 1.5/);
  invalid(() => nonNegativeIntFlag('-3'), /not a non-negative integer/);
  invalid(() => nonNegativeIntFlag('ten'), /not a non-negative integer/);
});

test('durationFlag parses Go durations into milliseconds', () => {
  assert.equal(durationFlag('5m0s'), 300_000);
  assert.equal(durationFlag('10'), 10_000);
  invalid(() => durationFlag('5 minutes'), /invalid duration: 5 minutes/);
});

test('commander reports a rejected value as an invalid option argument', () => {
  const cmd = new Command()
    .exitOverride()
    .configureOutput({ writeErr: () => {} })
    .option('--n <n>', 'a count', nonNegativeIntFlag);
  assert.throws(
    () => cmd.parse(['--n', 'x'], { from: 'user' }),
    (err: unknown) =>
      err instanceof Error &&
      (err as { code?: string }).code === 'commander.invalidArgument' &&
      /--n <n>.*not a non-negative integer: x/.test(err.message),
  );
  assert.equal(cmd.parse(['--n', '7'], { from: 'user' }).opts().n, 7);
});
