/**
 * `kscale up --chaos ha` end to end on the HA lab, small: 3 etcd members, 2 API servers behind HAProxy, 2
 * schedulers and 2 controller-managers, 10 hollow nodes, the `nodes` scenario (no load of its own, so every LIST
 * the servers serve after a kill comes from informers). Four faults: the etcd leader, an API server, the scheduler
 * leader and the controller-manager leader, each checked in report.json.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { LabReport } from '../../src/lab/index.js';
import { KSCALE } from './harness.js';

/** Runs `kscale <args>` to its end (killed after `killAfterMs`) and returns its stderr. */
function run(args: string[], killAfterMs: number): Promise<string> {
  const p = spawn(process.execPath, [KSCALE, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  p.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-20_000)));
  const killer = setTimeout(() => p.kill('SIGINT'), killAfterMs);
  return new Promise((resolve) =>
    p.once('close', () => {
      clearTimeout(killer);
      resolve(stderr);
    }),
  );
}

test('chaos ha: writes survive on every server, no relist storm after a server kill, Leases are taken over and pods still get scheduled', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-chaos-ha-'));
  try {
    const stderr = await run(
      [
        'up',
        ...['--etcd-members', '3', '--apiservers', '2', '--schedulers', '2', '--controller-managers', '2'],
        ...['--chaos', 'ha', '--chaos-gap', '3s', '--nodes', '10', '--scenario', 'nodes', '--hold', '5s'],
        ...['--scrape-interval', '2s', '--settle', '1s', '--report', dir],
      ],
      420_000,
    );
    const rep = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as LabReport;
    assert.equal(rep.result, 'completed', `${rep.error ?? ''}\n${stderr}`);
    const faults = rep.chaos ?? [];
    t.diagnostic(JSON.stringify(faults));
    assert.equal(faults.length, 4, JSON.stringify(faults));
    assert.match(faults[0]!.component, /^etcd-\d$/);
    assert.equal(faults[1]!.component, 'server-1');
    for (const f of faults) {
      assert.equal(f.error, undefined, JSON.stringify(f));
      // Every acknowledged write, read back on each server by itself.
      assert.equal(f.serversChecked, 2, JSON.stringify(f));
      assert.ok(f.writesChecked >= 20, JSON.stringify(f));
      assert.equal(f.writesLost, 0, JSON.stringify(f));
    }
    const server = faults[1]!;
    // The killed server's clients held watches; resuming them from their resourceVersion LISTs nothing, and a
    // reflector that had to relist LISTs once: never more LISTs than watches.
    assert.ok((server.watchesOnKilledServer ?? 0) > 0, JSON.stringify(server));
    assert.ok(server.listsAfterKill !== undefined, JSON.stringify(server));
    assert.ok(server.listsAfterKill <= server.watchesOnKilledServer!, JSON.stringify(server));
    const [sched, cm] = [faults[2]!, faults[3]!];
    assert.match(sched.component, /^scheduler-\d$/);
    assert.match(cm.component, /^controller-manager(-\d)?$/);
    for (const [f, lease] of [
      [sched, 'kube-scheduler'],
      [cm, 'kube-controller-manager'],
    ] as const) {
      assert.equal(f.lease, lease);
      assert.equal(f.killedLeader, true, JSON.stringify(f));
      // The standby takes over once the lease (15 s) has run out since the last renewal, plus a retry period.
      assert.ok(f.takeoverS !== null && f.takeoverS !== undefined && f.takeoverS < 30, JSON.stringify(f));
    }
    // Pods created while no scheduler led are bound once the standby leads: not before the takeover, not long after.
    assert.equal(sched.probePods, 5);
    const bound = sched.podsScheduledAfterS;
    assert.ok(bound !== null && bound !== undefined, JSON.stringify(sched));
    assert.ok(bound >= sched.takeoverS! - 0.5 && bound < sched.takeoverS! + 10, JSON.stringify(sched));
    // The first leader acted, and so did whoever took over: the standby, or the killed leader itself, restarted
    // within a second and campaigning again, when it wins the Lease once that has run out (then one name acted).
    const note = rep.notes.find((n) => n.startsWith('leader election (kube-scheduler Lease): ')) ?? '';
    const acted = /: (\d) of 2 candidates acted \(([^)]*)\)/.exec(note);
    assert.ok(acted !== null, rep.notes.join('\n'));
    if (acted[1] === '1') assert.equal(acted[2], sched.component, note);
    else assert.equal(acted[1], '2', note);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
