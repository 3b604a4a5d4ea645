import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunningComponent } from '../supervisor.js';
import { candidatesOf, leaseOf, pidOfIdentity, tookOver } from './leader.js';

const comp = (name: string, pid = 1): RunningComponent => ({ spec: { name }, pid }) as unknown as RunningComponent;

test('candidates are told by name: scheduler-<i> and controller-manager[-<i>] campaign, the rest do not', () => {
  assert.equal(leaseOf(comp('scheduler-0')), 'kube-scheduler');
  assert.equal(leaseOf(comp('controller-manager')), 'kube-controller-manager');
  assert.equal(leaseOf(comp('controller-manager-1')), 'kube-controller-manager');
  assert.equal(leaseOf(comp('server-1')), undefined);
  assert.equal(leaseOf(comp('scheduler-extender')), undefined);
  const running = ['server-0', 'controller-manager', 'controller-manager-1', 'scheduler-0'].map((n) => comp(n));
  assert.deepEqual(
    candidatesOf(running, 'kube-controller-manager').map((c) => c.spec.name),
    ['controller-manager', 'controller-manager-1'],
  );
});

test("a holderIdentity names its candidate's process: <host>_<pid>_<suffix>, host names with underscores too", () => {
  assert.equal(pidOfIdentity('box_4242_k3j2h1'), 4242);
  assert.equal(pidOfIdentity('my_host_7_abc123'), 7);
  assert.equal(pidOfIdentity('kube-scheduler-box'), undefined);
});

test('a takeover is another identity holding the Lease with a renewal after the kill', () => {
  const kill = 1_000_000;
  assert.equal(tookOver({ identity: 'h_2_b', renewTimeMs: kill + 1 }, 'h_1_a', kill), true);
  // The killed leader's last renewal, or the same identity, or a renewal from before the kill: no takeover.
  assert.equal(tookOver({ identity: 'h_1_a', renewTimeMs: kill + 1 }, 'h_1_a', kill), false);
  assert.equal(tookOver({ identity: 'h_2_b', renewTimeMs: kill - 1 }, 'h_1_a', kill), false);
  assert.equal(tookOver(undefined, 'h_1_a', kill), false);
});
