import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memberStatus, startEtcdCluster } from '../../storage/testing/etcd_cluster.js';
import { runPaths } from '../components.js';
import { etcdClientFlags, etcdClusterSpecs, haClusterPKI } from '../ha.js';
import type { RunningComponent } from '../supervisor.js';
import { etcdLeader, haFailover } from './ha.js';
import { CHAOS_SCENARIOS } from './scenario.js';

const comp = (name: string, args: string[] = []): RunningComponent =>
  ({ spec: { name, args } }) as unknown as RunningComponent;

test('the ha scenario kills the member etcd names its leader, then the last API server', async () => {
  const etcd = await startEtcdCluster(3);
  try {
    const leader = await etcd.leader();
    const members = etcd.members.map((m, i) => comp(`etcd-${i}`, ['--advertise-client-urls', m.clientUrl]));
    const running = [...members, comp('server-0'), comp('server-1'), comp('haproxy'), comp('scheduler-0')];
    const targets = await haFailover.targets(running);
    assert.deepEqual(
      targets.map((c) => c.spec.name),
      [`etcd-${etcd.members.indexOf(leader)}`, 'server-1'],
    );
    assert.equal(CHAOS_SCENARIOS.get('ha'), haFailover);
    // Just before the kill the leader is asked again: a member chosen earlier is replaced by the one leading now.
    const follower = members.find((m) => m !== targets[0])!;
    assert.equal(await haFailover.refine?.(follower, running), targets[0]);
    const server = running.find((c) => c.spec.name === 'server-1')!;
    assert.equal(await haFailover.refine?.(server, running), server);
  } finally {
    await etcd.stop();
  }
});

test('with standbys the ha scenario then kills the scheduler and controller-manager leaders; a killed controller-manager comes back as a standby', async () => {
  const running = [
    'server-0',
    'server-1',
    'controller-manager',
    'controller-manager-1',
    'scheduler-0',
    'scheduler-1',
  ].map((n) => comp(n));
  // Without a client the Lease holders are unknown: the first candidates stand in until refine asks the Lease.
  assert.deepEqual(
    (await haFailover.targets(running)).map((c) => c.spec.name),
    ['server-1', 'scheduler-0', 'controller-manager'],
  );
  // One candidate: no standby to take over, so it is not a target.
  assert.deepEqual(
    (await haFailover.targets(['server-0', 'controller-manager', 'scheduler-0'].map((n) => comp(n)))).map(
      (c) => c.spec.name,
    ),
    ['server-0'],
  );
  const cm = { spec: { name: 'controller-manager', args: [], ready: /kscale controller-manager started/ } };
  const again = haFailover.restartSpec?.(cm as unknown as RunningComponent);
  assert.ok(again?.ready.test('kscale controller-manager: campaigning for kube-controller-manager'));
  const sched = running.find((c) => c.spec.name === 'scheduler-1')!;
  assert.equal(haFailover.restartSpec?.(sched), sched.spec);
});

test("over the HA lab's etcd (TLS for clients and peers from the one PKI) the scenario still finds the leader; plain HTTP is refused", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-ha-tls-'));
  const procs: ChildProcess[] = [];
  let stderr = '';
  try {
    const paths = runPaths(dir, dir);
    const pki = await haClusterPKI(paths, 3);
    const { specs, urls } = await etcdClusterSpecs(3, dir, pki);
    assert.ok(urls.split(',').every((u) => u.startsWith('https://127.0.0.1:')));
    for (const s of specs) {
      assert.ok(s.args.includes('--client-cert-auth') && s.args.includes('--peer-client-cert-auth'));
      assert.ok(s.args[s.args.indexOf('--initial-cluster') + 1]!.split(',').every((m) => m.includes('=https://')));
      const p = spawn(s.command, s.args, { stdio: ['ignore', 'ignore', 'pipe'] });
      p.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-3000)));
      procs.push(p);
    }
    const running = specs.map((spec) => ({ spec }) as unknown as RunningComponent);
    let leader: RunningComponent | undefined;
    for (let i = 0; i < 100 && leader === undefined; i++) {
      leader = await etcdLeader(running);
      if (leader === undefined) await new Promise((r) => setTimeout(r, 200));
    }
    assert.match(leader?.spec.name ?? '', /^etcd-\d$/, `a leader found over TLS; etcd said: ${stderr}`);
    assert.equal((await haFailover.targets([...running, comp('server-0')]))[0], leader);
    // Plain text is refused.
    const url = urls.split(',')[0]!;
    assert.equal(await memberStatus(url.replace('https://', 'http://')), null);
    assert.deepEqual(
      etcdClientFlags(pki).filter((f) => f.startsWith('--')),
      ['--etcd-cafile', '--etcd-certfile', '--etcd-keyfile'],
    );
  } finally {
    for (const p of procs) p.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
