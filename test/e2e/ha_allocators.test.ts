/**
 * Service allocation with several API servers over one 3-member etcd
 * cluster: ClusterIPs live in a stored bitmap changed by compare-and-swap,
 * so concurrent creates through different servers never share an address,
 * and two servers racing for the last free address give it to exactly one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcdCluster, type EtcdCluster } from '../../src/storage/testing/etcd_cluster.js';
import { INSECURE_PORT, startServer, type TestServer } from './harness.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API objects are dynamic JSON
type Obj = Record<string, any>;

async function createService(server: TestServer, name: string, ns = 'default'): Promise<{ code: number; body: Obj }> {
  const res = await fetch(`${server.url}/api/v1/namespaces/${ns}/services`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name },
      spec: { ports: [{ port: 80 }], type: name.startsWith('np-') ? 'NodePort' : 'ClusterIP' },
    }),
  });
  return { code: res.status, body: (await res.json()) as Obj };
}

/** A fresh 3-member etcd cluster and two servers over it, stopped after `body`. */
async function withTwoServers(flags: string[], body: (servers: TestServer[]) => Promise<void>): Promise<void> {
  const etcd: EtcdCluster = await startEtcdCluster(3);
  const servers: TestServer[] = [];
  try {
    // Started together: both bootstrap the `kubernetes` Service, and neither may fail doing it.
    servers.push(
      ...(await Promise.all(
        [0, 1].map(() => startServer(['--etcd-servers', etcd.clientUrls, ...INSECURE_PORT, ...flags])),
      )),
    );
    await body(servers);
  } finally {
    for (const s of servers) await s.stop();
    await etcd.stop();
  }
}

test('300 Services created concurrently through two servers get 300 distinct ClusterIPs and distinct NodePorts', async () => {
  await withTwoServers(['--service-cluster-ip-range', '10.96.0.0/22'], async (servers) => {
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) => createService(servers[i % 2]!, i % 3 === 0 ? `np-${i}` : `svc-${i}`)),
    );
    for (const r of results) assert.equal(r.code, 201, JSON.stringify(r.body));
    const ips = results.map((r) => r.body.spec.clusterIP as string);
    assert.equal(new Set(ips).size, 300, 'every ClusterIP is distinct');
    assert.ok(!ips.includes('10.96.0.1'), 'the kubernetes Service keeps its address');
    const ports = results.filter((r) => r.body.spec.type === 'NodePort').map((r) => r.body.spec.ports[0].nodePort);
    assert.equal(ports.length, 100);
    assert.equal(new Set(ports).size, 100, 'every NodePort is distinct');
    // A deleted Service's address is free again, for either server.
    const del = await fetch(`${servers[0]!.url}/api/v1/namespaces/default/services/svc-1`, { method: 'DELETE' });
    assert.equal(del.status, 200);
    const again = await createService(servers[1]!, 'reuse');
    assert.equal(again.code, 201);
  });
});

test('two servers racing for the last free ClusterIP: exactly one succeeds, the other gets a clear error Status', async () => {
  // A /29 holds 6 addresses; the kubernetes Service takes the first.
  await withTwoServers(['--service-cluster-ip-range', '10.96.0.0/29'], async (servers) => {
    for (let i = 0; i < 4; i++) assert.equal((await createService(servers[i % 2]!, `fill-${i}`)).code, 201);
    const [a, b] = await Promise.all([createService(servers[0]!, 'race-a'), createService(servers[1]!, 'race-b')]);
    const codes = [a.code, b.code].sort();
    assert.deepEqual(codes, [201, 500], `got ${a.code} and ${b.code}`);
    const lost = a.code === 500 ? a.body : b.body;
    assert.equal(lost.kind, 'Status');
    assert.equal(lost.reason, 'InternalError');
    assert.match(lost.message as string, /failed to allocate a serviceIP: range is full/);
    const won = a.code === 201 ? a.body : b.body;
    const all = (await (await fetch(`${servers[1]!.url}/api/v1/services`)).json()) as Obj;
    const ips = (all.items as Obj[]).map((s) => s.spec.clusterIP as string);
    assert.equal(new Set(ips).size, 6, 'six Services hold six distinct addresses');
    assert.ok(ips.includes(won.spec.clusterIP as string));
  });
});
