import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { KSCALE, startServer, type TestServer, INSECURE_PORT } from './harness.js';

let server: TestServer;
before(async () => {
  server = await startServer([
    ...INSECURE_PORT,
    '--quota-backend-bytes',
    String(3 * 1024 * 1024),
    '--etcd-compaction-interval',
    '1s',
  ]);
});
after(async () => server.stop());

/** Runs `kscale storage <args>` against the test server, as an operator on its host would. */
function storage(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [KSCALE, 'storage', ...args, '--kubeconfig', server.kubeconfig], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

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

test("a full storage quota fails writes with etcd's message, shows in /healthz and /metrics, and recovers by compaction, `kscale storage defrag` and `alarm disarm`", async () => {
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
  // Disarming before space is reclaimed is refused with the store's reason.
  const early = storage('alarm', 'disarm');
  assert.equal(early.status, 1);
  assert.match(early.stderr, /still exceeds the quota/);
  // The compactor (1 s) compacts; a defrag then reclaims the space, but the alarm stays raised until disarmed.
  await new Promise((r) => setTimeout(r, 2_500));
  const defrag = storage('defrag');
  assert.equal(defrag.status, 0, defrag.stderr);
  assert.match(defrag.stdout, /alarms NOSPACE/);
  assert.equal((await fetch(`${server.url}/healthz`)).status, 500, 'the alarm holds after defrag');
  assert.equal((await put('big-0', 1000, 0)).status, 500, 'writes are refused until the disarm');
  assert.equal(storage('alarm', 'list').stdout, 'alarm:NOSPACE\n');
  const disarm = storage('alarm', 'disarm');
  assert.equal(disarm.status, 0, disarm.stderr);
  assert.match(disarm.stdout, /alarms none/);
  assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
  assert.match(
    await (await fetch(`${server.url}/metrics`)).text(),
    /kscale_storage_defragment_last_duration_seconds \d/,
  );
  const again = await put('big-0', 1000, 0);
  assert.equal(again.status, 200, await again.text());
});
