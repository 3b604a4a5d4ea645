/**
 * The `kubernetes` Service's endpoints with several API servers, as
 * upstream's lease endpoint reconciler keeps them: three servers over one
 * 3-member etcd, on 127.0.0.2, .3 and .4 with one port, are all listed; a
 * server killed with SIGKILL drops out once its /masterleases/ key expires;
 * one stopped gracefully drops out at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcdCluster } from '../../src/storage/testing/etcd_cluster.js';
import { freePort } from '../../src/storage/testing/etcd_process.js';
import { etcdServerArgs, startServer, type TestServer } from './harness.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API objects are dynamic JSON
type Obj = Record<string, any>;

async function addresses(server: TestServer): Promise<{ endpoints: string[]; slice: string[]; port: number }> {
  const ep = (await (await fetch(`${server.url}/api/v1/namespaces/default/endpoints/kubernetes`)).json()) as Obj;
  const sl = (await (
    await fetch(`${server.url}/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes`)
  ).json()) as Obj;
  return {
    endpoints: ((ep.subsets?.[0]?.addresses ?? []) as Obj[]).map((a) => a.ip as string),
    slice: ((sl.endpoints ?? []) as Obj[]).map((e) => e.addresses[0] as string),
    port: ep.subsets?.[0]?.ports?.[0]?.port as number,
  };
}

async function waitFor(what: string, ms: number, check: () => Promise<boolean>): Promise<number> {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return Date.now() - t0;
}

test('three servers are the kubernetes endpoints; a killed one drops out after the lease TTL, a stopped one at once', async () => {
  const etcd = await startEtcdCluster(3);
  const port = await freePort();
  const servers: TestServer[] = [];
  try {
    for (const ip of ['127.0.0.2', '127.0.0.3', '127.0.0.4'])
      servers.push(await startServer(etcdServerArgs(etcd.clientUrls, ip, port)));
    const all = ['127.0.0.2', '127.0.0.3', '127.0.0.4'];
    // Each server reconciles when it starts, so the last one to start already lists all three.
    await waitFor('three addresses', 15_000, async () => {
      const a = await addresses(servers[0]!);
      return JSON.stringify(a.endpoints) === JSON.stringify(all) && JSON.stringify(a.slice) === JSON.stringify(all);
    });
    assert.equal((await addresses(servers[1]!)).port, port);

    // kill -9: no goodbye; the key expires after its 15 s TTL, and the next pass (10 s) of a live server drops it.
    const killed = servers[2]!;
    const exited = new Promise((r) => killed.process.once('exit', r));
    killed.process.kill('SIGKILL');
    await exited;
    const t = await waitFor('the killed server to drop out', 40_000, async () => {
      const a = await addresses(servers[0]!);
      return JSON.stringify(a.endpoints) === JSON.stringify(all.slice(0, 2));
    });
    assert.ok(t >= 10_000, `dropped after ${t} ms, before its lease could have expired`);
    assert.deepEqual((await addresses(servers[1]!)).slice, all.slice(0, 2));

    // A graceful stop removes its own lease and address at once.
    await servers[1]!.stop();
    await waitFor('the stopped server to drop out', 5_000, async () => {
      const a = await addresses(servers[0]!);
      return JSON.stringify(a.endpoints) === JSON.stringify(['127.0.0.2']);
    });
  } finally {
    for (const s of servers) await s.stop();
    await etcd.stop();
  }
});
