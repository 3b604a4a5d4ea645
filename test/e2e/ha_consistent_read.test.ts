/**
 * Consistent reads across API servers: two `kscale server`s over one
 * 3-member etcd; a ConfigMap written through server A is seen by a GET and
 * a LIST (resourceVersion unset) sent to server B right after A answered,
 * every time, while B's watch cache serves its lists.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcdCluster } from '../../src/storage/testing/etcd_cluster.js';
import { INSECURE_PORT, startServer, type TestServer } from './harness.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API objects are dynamic JSON
type Obj = Record<string, any>;

const CM = '/api/v1/namespaces/default/configmaps';

test('a write through server A is read back at once through server B by GET and LIST, 150 times', async () => {
  const etcd = await startEtcdCluster(3);
  const servers: TestServer[] = [];
  try {
    for (let i = 0; i < 2; i++) servers.push(await startServer(['--etcd-servers', etcd.clientUrls, ...INSECURE_PORT]));
    for (let i = 0; i < 150; i++) {
      const [a, b] = (i % 2 === 0 ? servers : [...servers].reverse()) as [TestServer, TestServer];
      const name = `cm-${i}`;
      const created = await fetch(`${a.url}${CM}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { i: String(i) } }),
      });
      assert.equal(created.status, 201);
      const rv = Number(((await created.json()) as Obj).metadata.resourceVersion);
      const got = await fetch(`${b.url}${CM}/${name}`);
      assert.equal(got.status, 200, `round ${i}: GET through B`);
      const list = (await (await fetch(`${b.url}${CM}`)).json()) as Obj;
      assert.ok(
        Number(list.metadata.resourceVersion) >= rv,
        `round ${i}: list at ${list.metadata.resourceVersion} < ${rv}`,
      );
      assert.equal((list.items as Obj[]).length, i + 1, `round ${i}: LIST through B`);
    }
  } finally {
    for (const s of servers) await s.stop();
    await etcd.stop();
  }
});
