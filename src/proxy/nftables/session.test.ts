/**
 * NftSession against the real nft 1.0.6 and kernel, in a network namespace
 * the test creates and removes (needs root): transactions apply in order
 * through one process, a refused transaction is reported with nft's error
 * and leaves nothing of itself behind (atomic), and a dead process is
 * replaced on the next transaction.
 *
 *   node --test dist/src/proxy/nftables/session.test.js
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { ExecError } from '../exec.js';
import { NftSession, toLine } from './session.js';

const NS = `kscale-nftsess-${process.pid}`;
const list = (): string => execFileSync('ip', ['netns', 'exec', NS, 'nft', 'list', 'ruleset'], { encoding: 'utf8' });

before(() => execFileSync('ip', ['netns', 'add', NS]));
after(() => execFileSync('ip', ['netns', 'delete', NS]));

test('toLine joins nft -f lines with ;', () => {
  assert.equal(
    toLine('add table ip t\nadd chain ip t c { counter ; }\n'),
    'add table ip t ; add chain ip t c { counter ; }',
  );
});

test('transactions apply in order through one process; a refused one is reported and applies nothing', async () => {
  const s = new NftSession(NS, 10_000);
  try {
    await s.apply('add table ip kt\nadd set ip kt s { type ipv4_addr ; }\nadd element ip kt s { 10.0.0.1 }\n');
    // Several transactions queued at once run one after the other.
    await Promise.all([s.apply('add chain ip kt c1 { counter ; }\n'), s.apply('add element ip kt s { 10.0.0.2 }\n')]);
    let got = list();
    assert.match(got, /chain c1/);
    assert.match(got, /10\.0\.0\.1, 10\.0\.0\.2/);

    // `create element` of an existing element fails in the kernel: the chain and element before it must not stay.
    const bad = s.apply('add chain ip kt c2\nadd element ip kt s { 10.0.0.3 }\ncreate element ip kt s { 10.0.0.1 }\n');
    await assert.rejects(bad, (err: unknown) => err instanceof ExecError && /File exists/.test(err.result.stderr));
    got = list();
    assert.doesNotMatch(got, /chain c2/);
    assert.doesNotMatch(got, /10\.0\.0\.3/);

    // A syntax error is reported too, and the session goes on with the same process.
    await assert.rejects(
      s.apply('add chain ip kt\n'),
      (err: unknown) => err instanceof ExecError && /syntax error/.test(err.result.stderr),
    );
    await s.apply('add chain ip kt c3\n');
    assert.match(list(), /chain c3/);
    assert.equal(s.starts, 1);
  } finally {
    s.close();
  }
});

test('a process that died is replaced on the next transaction; a hung one is killed at the timeout', async () => {
  const s = new NftSession(NS, 3_000);
  try {
    await s.apply('add table ip kd\n');
    const pid = (s as unknown as { proc: { pid: number } }).proc.pid;
    process.kill(pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 200));
    await s.apply('add chain ip kd c1\n');
    assert.equal(s.starts, 2);
    assert.match(list(), /table ip kd \{\s+chain c1/);
    // nft stopped (SIGSTOP) never answers: the transaction fails with 124 and the next one runs in a new process.
    const pid2 = (s as unknown as { proc: { pid: number } }).proc.pid;
    process.kill(pid2, 'SIGSTOP');
    await assert.rejects(
      s.apply('add chain ip kd c2\n'),
      (err: unknown) => err instanceof ExecError && err.result.code === 124,
    );
    await s.apply('add chain ip kd c3\n');
    assert.equal(s.starts, 3);
  } finally {
    s.close();
  }
});
