/**
 * Two schedulers with leader election on one server: exactly one leads (prints its started line and holds the
 * kube-scheduler Lease), and when it is killed with SIGKILL the standby takes the Lease within the lease duration
 * (15 s) plus a retry period, and starts scheduling.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { INSECURE_PORT, KSCALE, startServer } from './harness.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API objects are dynamic JSON
type Obj = Record<string, any>;

test('of two leader-elected schedulers exactly one leads; the standby takes over within the lease duration', async () => {
  const server = await startServer([...INSECURE_PORT]);
  const procs: { p: ChildProcess; out: string }[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      const p = spawn(
        process.execPath,
        [KSCALE, 'scheduler', '--secure-port', '0', '--kubeconfig', server.kubeconfig, '--leader-elect=true'],
        { stdio: ['ignore', 'pipe', 'ignore'] },
      );
      const entry = { p, out: '' };
      p.stdout!.on('data', (d: Buffer) => (entry.out += d.toString()));
      procs.push(entry);
    }
    const holder = async (): Promise<string | undefined> => {
      const r = await fetch(`${server.url}/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler`);
      return r.status === 200 ? (((await r.json()) as Obj).spec?.holderIdentity as string | undefined) : undefined;
    };
    const leaderOf = async (): Promise<number> => {
      const h = await holder();
      return procs.findIndex((e) => h !== undefined && h.split('_')[1] === String(e.p.pid));
    };
    let leader = -1;
    for (let i = 0; i < 150 && leader < 0; i++) {
      leader = await leaderOf();
      if (leader < 0) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(leader >= 0, 'one scheduler holds the kube-scheduler Lease');
    await new Promise((r) => setTimeout(r, 3_000));
    const started = procs.map((e) => e.out.includes('kscale scheduler started'));
    assert.deepEqual(
      started,
      procs.map((_, i) => i === leader),
      'only the Lease holder started scheduling',
    );
    const t0 = Date.now();
    procs[leader]!.p.kill('SIGKILL');
    const standby = 1 - leader;
    while ((await leaderOf()) !== standby && Date.now() - t0 < 25_000) await new Promise((r) => setTimeout(r, 200));
    const took = Date.now() - t0;
    process.stdout.write(`# the standby took the Lease ${took} ms after the leader was killed\n`);
    assert.equal(await leaderOf(), standby, 'the standby holds the Lease');
    assert.ok(took <= 15_000 + 2_000 + 1_000, `within the lease duration and a retry period (${took} ms)`);
    for (let i = 0; i < 30 && !procs[standby]!.out.includes('kscale scheduler started'); i++)
      await new Promise((r) => setTimeout(r, 100));
    assert.ok(procs[standby]!.out.includes('kscale scheduler started'), 'the standby started scheduling');
  } finally {
    for (const e of procs) e.p.kill('SIGKILL');
    await server.stop();
  }
});
