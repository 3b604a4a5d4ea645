/**
 * Two leader-elected controller-managers on one server: exactly one holds the kube-controller-manager Lease
 * and acts (a ReplicaSet's pods are created once, not once per process), and when it is killed with SIGKILL
 * the standby takes the Lease within the lease duration plus a retry period and takes over the work.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { INSECURE_PORT, KSCALE, startServer } from './harness.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API objects are dynamic JSON
type Obj = Record<string, any>;

const LEASE_MS = 4_000;
const RETRY_MS = 1_000;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

test('of two leader-elected controller-managers exactly one acts; the standby takes over within the lease duration', async () => {
  const server = await startServer([...INSECURE_PORT]);
  const procs: { p: ChildProcess; out: string }[] = [];
  const ctrl = new AbortController();
  try {
    for (let i = 0; i < 2; i++) {
      const p = spawn(
        process.execPath,
        [
          KSCALE,
          'controller-manager',
          '--secure-port=0',
          '--kubeconfig',
          server.kubeconfig,
          '--controllers=replicaset-controller',
          '--leader-elect=true',
          '--leader-elect-lease-duration=4s',
          '--leader-elect-renew-deadline=3s',
          '--leader-elect-retry-period=1s',
        ],
        { stdio: ['ignore', 'pipe', 'ignore'] },
      );
      const entry = { p, out: '' };
      p.stdout!.on('data', (d: Buffer) => (entry.out += d.toString()));
      procs.push(entry);
    }
    // Every pod creation, counted by a watch from before the first ReplicaSet.
    const podsList = (await (await fetch(`${server.url}/api/v1/namespaces/default/pods`)).json()) as Obj;
    const added = new Map<string, number>();
    const watch = await fetch(
      `${server.url}/api/v1/namespaces/default/pods?watch=1&resourceVersion=${podsList.metadata.resourceVersion}`,
      { signal: ctrl.signal },
    );
    void (async () => {
      let buf = '';
      try {
        for await (const chunk of watch.body! as AsyncIterable<Uint8Array>) {
          buf += Buffer.from(chunk).toString();
          let nl;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const ev = JSON.parse(buf.slice(0, nl)) as Obj;
            buf = buf.slice(nl + 1);
            const rs = (ev.object?.metadata?.ownerReferences as Obj[] | undefined)?.[0]?.name as string | undefined;
            if (ev.type === 'ADDED' && rs !== undefined) added.set(rs, (added.get(rs) ?? 0) + 1);
          }
        }
      } catch {
        // Stopped by the test.
      }
    })();

    const holder = async (): Promise<string | undefined> => {
      const r = await fetch(
        `${server.url}/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager`,
      );
      return r.status === 200 ? (((await r.json()) as Obj).spec?.holderIdentity as string | undefined) : undefined;
    };
    const leaderOf = async (): Promise<number> => {
      const h = await holder();
      return procs.findIndex((e) => h !== undefined && h.split('_')[1] === String(e.p.pid));
    };
    const replicaSet = async (name: string, replicas: number): Promise<void> => {
      const res = await fetch(`${server.url}/apis/apps/v1/namespaces/default/replicasets`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: { name },
          spec: {
            replicas,
            selector: { matchLabels: { app: name } },
            template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'pause' }] } },
          },
        }),
      });
      assert.equal(res.status, 201, await res.text());
    };
    /** Waits until `name` has `n` pods created, then a little longer so a second actor's creations would show. */
    const created = async (name: string, n: number): Promise<number> => {
      for (let i = 0; i < 200 && (added.get(name) ?? 0) < n; i++) await sleep(100);
      await sleep(3_000);
      return added.get(name) ?? 0;
    };

    let leader = -1;
    for (let i = 0; i < 150 && leader < 0; i++) {
      leader = await leaderOf();
      if (leader < 0) await sleep(100);
    }
    assert.ok(leader >= 0, 'one controller-manager holds the kube-controller-manager Lease');
    await replicaSet('before', 4);
    assert.equal(await created('before', 4), 4, 'the ReplicaSet got its 4 pods once, from one actor');
    assert.deepEqual(
      procs.map((e) => e.out.includes('kscale controller-manager started')),
      procs.map((_, i) => i === leader),
      'only the Lease holder started its controllers',
    );

    const t0 = Date.now();
    procs[leader]!.p.kill('SIGKILL');
    const standby = 1 - leader;
    while ((await leaderOf()) !== standby && Date.now() - t0 < 20_000) await sleep(100);
    const took = Date.now() - t0;
    process.stdout.write(`# the standby took the Lease ${took} ms after the leader was killed\n`);
    assert.equal(await leaderOf(), standby, 'the standby holds the Lease');
    assert.ok(took <= LEASE_MS + RETRY_MS + 1_000, `within the lease duration and a retry period (${took} ms)`);
    await replicaSet('after', 3);
    assert.equal(await created('after', 3), 3, 'the new leader created the new ReplicaSet its 3 pods');
    assert.equal(added.get('before'), 4, 'the new leader created nothing more for the first ReplicaSet');
    assert.ok(procs[standby]!.out.includes('kscale controller-manager started'), 'the standby started its controllers');
  } finally {
    ctrl.abort();
    for (const e of procs) e.p.kill('SIGKILL');
    await server.stop();
  }
});
