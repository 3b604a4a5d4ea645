/**
 * kill -9 of the etcd leader during writes through two API servers: after a
 * new leader is elected, every acknowledged ConfigMap is visible to a
 * consistent GET and to a consistent LIST on both servers (the issue saw
 * 6-8 of about 3,000 hidden), and both servers' watches go on delivering.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcdCluster } from '../../src/storage/testing/etcd_cluster.js';
import { INSECURE_PORT, startServer, type TestServer } from './harness.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API objects are dynamic JSON
type Obj = Record<string, any>;

const CM = '/api/v1/namespaces/default/configmaps';

test('after the etcd leader is killed mid-write, every acknowledged write is visible through both servers', async () => {
  const etcd = await startEtcdCluster(3);
  const servers: TestServer[] = [];
  try {
    for (let i = 0; i < 2; i++) servers.push(await startServer(['--etcd-servers', etcd.clientUrls, ...INSECURE_PORT]));
    const acked: string[] = [];
    // When the leader was killed, and how long until the first write after it was acknowledged.
    const t: { killedAt?: number; firstAfter?: number } = {};
    let stop = false;
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; !stop; i++) {
        const name = `w${w}-${i}`;
        try {
          const res = await fetch(`${servers[w % 2]!.url}${CM}`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }),
            signal: AbortSignal.timeout(20_000),
          });
          if (res.status === 201) {
            acked.push(name);
            if (t.killedAt !== undefined && t.firstAfter === undefined) t.firstAfter = Date.now() - t.killedAt;
          } else await res.arrayBuffer();
        } catch {
          // Not acknowledged: it may or may not be stored, and is not checked.
        }
      }
    };
    const writers = Array.from({ length: 8 }, (_, w) => writer(w));
    await new Promise((r) => setTimeout(r, 1_500));
    const leader = await etcd.leader();
    await leader.kill('SIGKILL');
    t.killedAt = Date.now();
    const ackedAtKill = acked.length;
    while (t.firstAfter === undefined && Date.now() - t.killedAt < 30_000) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 2_000));
    stop = true;
    await Promise.all(writers);
    process.stdout.write(
      `# first write acknowledged ${t.firstAfter} ms after the leader kill; ${acked.length} acked\n`,
    );
    assert.ok(acked.length > ackedAtKill && t.firstAfter !== undefined, 'writes resumed after the leader was killed');

    for (const s of servers) {
      const list = (await (await fetch(`${s.url}${CM}`)).json()) as Obj;
      const listed = new Set((list.items as Obj[]).map((c) => c.metadata.name as string));
      const missing = acked.filter((n) => !listed.has(n));
      assert.deepEqual(missing, [], `${s.url}: acknowledged but not listed`);
      const hidden: string[] = [];
      for (const name of acked) {
        const r = await fetch(`${s.url}${CM}/${name}`);
        if (r.status !== 200) hidden.push(`${name}:${r.status}:${(await r.text()).slice(0, 160)}`);
      }
      assert.deepEqual(hidden, [], `${s.url}: acknowledged but GET fails`);
    }
    // Watches go on: a write after the failover reaches a watch opened on each server.
    for (const s of servers) {
      const list = (await (await fetch(`${s.url}${CM}?limit=1`)).json()) as Obj;
      const ctrl = new AbortController();
      const watch = await fetch(`${s.url}${CM}?watch=1&resourceVersion=${list.metadata.resourceVersion}`, {
        signal: ctrl.signal,
      });
      const name = `after-${servers.indexOf(s)}`;
      const created = await fetch(`${servers[0]!.url}${CM}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }),
      });
      assert.equal(created.status, 201);
      const reader = watch.body!.getReader();
      let text = '';
      const deadline = Date.now() + 10_000;
      while (!text.includes(`"name":"${name}"`) && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString();
      }
      ctrl.abort();
      assert.ok(text.includes(`"name":"${name}"`), `${s.url}: the watch delivered the write after the failover`);
    }
  } finally {
    for (const s of servers) await s.stop();
    await etcd.stop();
  }
});
