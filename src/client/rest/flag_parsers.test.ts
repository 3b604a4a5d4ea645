import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Command, InvalidArgumentError } from 'commander';
import {
  booleanFlag,
  deprecatedAlias,
  durationFlag,
  durationTextFlag,
  intFlag,
  nonNegativeIntFlag,
  nonNegativeNumberFlag,
  numberFlag,
} from './flag_parsers.js';

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

test('intFlag takes negative integers (a port of -1 is off) and rejects fractions and blanks', () => {
  assert.equal(intFlag('-1'), -1);
  assert.equal(intFlag('10250'), 10250);
  invalid(() => intFlag('1.5'), /not an integer: 1.5/);
  invalid(() => intFlag(''), /not an integer/);
  invalid(() => intFlag('x'), /not an integer/);
});

test("booleanFlag takes pflag's spellings of true and false and nothing else", () => {
  for (const t of ['true', '', '1', 't', 'True']) assert.equal(booleanFlag(t), true);
  for (const f of ['false', '0', 'f', 'False']) assert.equal(booleanFlag(f), false);
  invalid(() => booleanFlag('yes'), /not a boolean \(true or false\): yes/);
});

test('durationTextFlag checks a duration but keeps it as written', () => {
  assert.equal(durationTextFlag('5m0s'), '5m0s');
  invalid(() => durationTextFlag('soon'), /soon/);
});

test('deprecatedAlias sets the current flag from the old spelling, with one warning', async () => {
  const warnings: string[] = [];
  let seen: unknown;
  const cmd = new Command('nodes')
    .exitOverride()
    .option('--kubelet-max-connections <n>', 'sockets', nonNegativeIntFlag, 64)
    .action((o: Record<string, unknown>) => {
      seen = o.kubeletMaxConnections;
    });
  deprecatedAlias(cmd, 'max-connections', 'kubelet-max-connections', nonNegativeIntFlag, (l) => warnings.push(l));
  await cmd.parseAsync(['--max-connections', '8'], { from: 'user' });
  assert.equal(seen, 8);
  assert.deepEqual(warnings, ['Flag --max-connections has been deprecated, use --kubelet-max-connections instead\n']);
  await assert.rejects(cmd.parseAsync(['--max-connections', 'x'], { from: 'user' }), /not a non-negative integer/);
});
