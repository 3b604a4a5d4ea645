/**
 * Every etcd member unreachable: requests answer a Status with 503 or 504
 * within the request deadline instead of hanging, /readyz fails, and when
 * etcd comes back everything resumes without restarting the server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcdCluster } from '../../src/storage/testing/etcd_cluster.js';
import { INSECURE_PORT, startServer } from './harness.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API objects are dynamic JSON
type Obj = Record<string, any>;

const CM = '/api/v1/namespaces/default/configmaps';
const body = (name: string): string =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } });

test('with every etcd member down: 503/504 Status within the deadline and /readyz fails; then it resumes', async () => {
  const etcd = await startEtcdCluster(3);
  const server = await startServer(['--etcd-servers', etcd.clientUrls, ...INSECURE_PORT]);
  try {
    const post = (name: string): Promise<Response> =>
      fetch(`${server.url}${CM}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: body(name),
      });
    assert.equal((await post('before')).status, 201);
    for (const m of etcd.members) await m.kill('SIGKILL');

    const t0 = Date.now();
    const res = await post('during');
    const took = Date.now() - t0;
    assert.ok([503, 504].includes(res.status), `a write answered ${res.status}`);
    const st = (await res.json()) as Obj;
    assert.equal(st.kind, 'Status');
    assert.ok(took < 60_000, `answered after ${took} ms, past the 60 s request deadline`);
    const get = await fetch(`${server.url}${CM}/before`);
    assert.ok([503, 504].includes(get.status), `a consistent GET answered ${get.status}`);

    const r0 = Date.now();
    const ready = await fetch(`${server.url}/readyz`);
    assert.equal(ready.status, 500);
    assert.match(await ready.text(), /\[-\]etcd failed/);
    assert.ok(Date.now() - r0 < 5_000, '/readyz answered within its check timeout');

    for (const m of etcd.members) await m.restart(false);
    const deadline = Date.now() + 30_000;
    let code = 0;
    while (Date.now() < deadline) {
      code = (await post('after')).status;
      if (code === 201) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.equal(code, 201, 'writes resume once etcd is back, without a restart');
    assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
    const list = (await (await fetch(`${server.url}${CM}`)).json()) as Obj;
    assert.deepEqual((list.items as Obj[]).map((c) => c.metadata.name).sort(), ['after', 'before']);
  } finally {
    await server.stop();
    await etcd.stop();
  }
});
