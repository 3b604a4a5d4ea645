import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CommanderError } from 'commander';
import { asUsage, EXIT, messageOf, reportError, UsageError, verboseArgv } from './exit.js';

const capture = (err: unknown, verbose = false): { code: number; out: string } => {
  let out = '';
  const code = reportError(err, 'kscale up', verbose, (s) => {
    out += s;
  });
  return { code, out };
};

test('a usage error prints one line naming the command and exits 2', () => {
  const r = capture(new UsageError('--scenario: no scenario "x"'));
  assert.equal(r.code, EXIT.USAGE);
  assert.equal(r.out, 'kscale up: --scenario: no scenario "x"\n');
});

test('a runtime failure prints one line with its cause and exits 1; the stack only when verbose', () => {
  const err = new Error('cannot open storage', { cause: new Error('SQLITE_CANTOPEN: unable to open database file') });
  const quiet = capture(err);
  assert.equal(quiet.code, EXIT.RUNTIME);
  assert.equal(quiet.out, 'kscale up: cannot open storage: SQLITE_CANTOPEN: unable to open database file\n');
  const loud = capture(err, true);
  assert.equal(loud.code, EXIT.RUNTIME);
  assert.match(loud.out, /\n {4}at /);
});

test("commander's own errors (already printed) exit 2, its help and version exit 0", () => {
  assert.equal(capture(new CommanderError(1, 'commander.unknownOption', "error: unknown option '--x'")).code, 2);
  const help = capture(new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)'));
  assert.deepEqual(help, { code: 0, out: '' });
});

test('messageOf flattens multi-line messages and repeated causes onto one line', () => {
  const inner = new Error('EADDRINUSE');
  assert.equal(messageOf(new Error('listen EADDRINUSE', { cause: inner })), 'listen EADDRINUSE');
  assert.equal(messageOf(new Error('a\n  b')), 'a b');
  assert.equal(messageOf('plain'), 'plain');
});

test('asUsage turns what its function throws into a UsageError naming the flag', () => {
  assert.throws(
    () =>
      asUsage('--kubeconfig', () => {
        throw new Error('cannot read kubeconfig /x');
      }),
    (e: unknown) => e instanceof UsageError && e.message === '--kubeconfig: cannot read kubeconfig /x',
  );
  assert.equal(
    asUsage('--n', () => 3),
    3,
  );
});

test("verboseArgv accepts -v, --verbose and klog's --v=N with N above 0", () => {
  assert.ok(verboseArgv(['node', 'kscale', 'server', '-v']));
  assert.ok(verboseArgv(['node', 'kscale', 'server', '--verbose']));
  assert.ok(verboseArgv(['node', 'kscale', 'server', '--v=2']));
  assert.ok(verboseArgv(['node', 'kscale', 'server', '--v', '4']));
  assert.ok(!verboseArgv(['node', 'kscale', 'server', '--v=0']));
  assert.ok(!verboseArgv(['node', 'kscale', 'server', '--version']));
});
