/**
 * A GET without resourceVersion is a consistent read: against a real
 * `kscale server`, a GET sent after a write's answer (on another connection)
 * shows that write, even while other resources move storage's revision ahead
 * of the pods cache, and it is answered by the watch cache, not by a storage read.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { startServer, type TestServer } from './harness.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API objects are dynamic JSON
type Obj = Record<string, any>;

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

/** One HTTP call with its own keep-alive agent, so reads and writes go over different connections. */
function call(agent: Agent, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ code: number; text: string }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = request(new URL(path, server.url), {
      method,
      agent,
      headers: data === undefined ? {} : { 'Content-Type': contentType, 'Content-Length': data.length },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ code: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

async function json(agent: Agent, method: string, path: string, body?: unknown, contentType?: string): Promise<Obj> {
  const r = await call(agent, method, path, body, contentType);
  assert.ok(r.code >= 200 && r.code < 300, `${method} ${path}: ${r.code} ${r.text}`);
  return JSON.parse(r.text) as Obj;
}

/** etcd_request_duration_seconds_count of storage gets of pods, from /metrics. */
async function podStorageGets(agent: Agent): Promise<number> {
  const text = (await call(agent, 'GET', '/metrics')).text;
  const m = /^etcd_request_duration_seconds_count\{operation="get",type="pods"\} (\d+)$/m.exec(text);
  return m === null ? 0 : Number(m[1]);
}

test('a GET without resourceVersion sees every write answered before it, from the watch cache', async () => {
  const writer = new Agent({ keepAlive: true });
  const reader = new Agent({ keepAlive: true });
  const other = new Agent({ keepAlive: true });
  try {
    const pods = '/api/v1/namespaces/default/pods';
    const names = ['a', 'b', 'c', 'd'];
    for (const n of names) {
      await json(writer, 'POST', pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: n }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    }
    const storageGetsBefore = await podStorageGets(reader);
    // Config map writes run alongside: storage's revision keeps moving past the pods cache's last event.
    let stop = false;
    const churn = (async () => {
      for (let i = 0; !stop; i++) await json(other, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` } });
    })();
    try {
      await Promise.all(names.map(async (n) => {
        for (let i = 0; i < 40; i++) {
          const written = await json(writer, 'PATCH', `${pods}/${n}/status`, { status: { message: `v${i}` } }, 'application/merge-patch+json');
          const got = await json(reader, 'GET', `${pods}/${n}`);
          assert.equal(got.status.message, `v${i}`, `GET of ${n} after write ${i}`);
          assert.ok(Number(got.metadata.resourceVersion) >= Number(written.metadata.resourceVersion));
          // A configmap created after this point must be visible to a GET too (its cache is fed by progress as well).
          const cm = await json(other, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `seen-${n}-${i}` } });
          const back = await json(reader, 'GET', `/api/v1/namespaces/default/configmaps/${cm.metadata.name as string}`);
          assert.equal(back.metadata.uid, cm.metadata.uid);
        }
      }));
    } finally {
      stop = true;
      await churn;
    }
    assert.equal(await podStorageGets(reader), storageGetsBefore, 'no GET of a pod read storage');
  } finally {
    writer.destroy();
    reader.destroy();
    other.destroy();
  }
});
