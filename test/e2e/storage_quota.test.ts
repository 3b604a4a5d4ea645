import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startServer, type TestServer } from './harness.js';

let server: TestServer;
before(async () => {
  server = await startServer(['--quota-backend-bytes', String(3 * 1024 * 1024), '--etcd-compaction-interval', '1s']);
});
after(async () => server.stop());

async function put(name: string, size: number, i: number): Promise<Response> {
  const body = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default' },
    data: { blob: String(i).padEnd(size, 'x') },
  };
  return fetch(`${server.url}/api/v1/namespaces/default/configmaps/${name}?fieldManager=quota-test`, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/apply-patch+yaml' },
    body: JSON.stringify(body),
  });
}

test("a full storage quota fails writes with etcd's message, shows in /healthz and /metrics, and recovers by compaction and defragmentation", async () => {
  let failure: { code?: number; message?: string } | null = null;
  // Rewrite five 200 KB ConfigMaps until the quota is hit (bounded: 200 writes).
  for (let i = 0; i < 200 && failure === null; i++) {
    const r = await put(`big-${i % 5}`, 200_000, i);
    if (r.status >= 400) failure = (await r.json()) as { code?: number; message?: string };
    else await r.arrayBuffer();
  }
  assert.ok(failure !== null, 'the quota was reached');
  assert.equal(failure.code, 500);
  assert.match(failure.message ?? '', /database space exceeded/);
  const health = await fetch(`${server.url}/healthz?verbose`);
  assert.equal(health.status, 500);
  assert.match(await health.text(), /\[-\]etcd-alarms failed/);
  assert.match(await (await fetch(`${server.url}/metrics`)).text(), /kscale_storage_alarm\{alarm="NOSPACE"\} 1/);
  // Reads go on under the alarm.
  assert.equal((await fetch(`${server.url}/api/v1/namespaces/default/configmaps/big-0`)).status, 200);
  // The compactor compacts, then defragments while the alarm is raised: the alarm clears by itself.
  const deadline = Date.now() + 30_000;
  let ok = false;
  while (!ok && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    ok = (await fetch(`${server.url}/healthz`)).status === 200;
  }
  assert.ok(ok, '/healthz recovered within 30 s');
  const again = await put('big-0', 1000, 0);
  assert.equal(again.status, 200, await again.text());
});
