/**
 * A GET without resourceVersion is a consistent read: against a real
 * `kscale server`, a GET sent after a write's answer (on another connection)
 * shows that write, for many concurrent writers, while other resources move
 * storage's revision ahead of the pods cache. With the embedded store a
 * current watch cache answers it, a trailing one never delays it (storage
 * does); the guarantee must hold as well
 * with --watch-cache=false and over a real etcd (--etcd-servers).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { startEtcd, type EtcdProcess } from '../../src/storage/testing/etcd_process.js';
import { startServer, type TestServer, INSECURE_PORT } from './harness.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API objects are dynamic JSON
type Obj = Record<string, any>;

const WORKERS = 8;
const ROUNDS = 25;
const PODS = '/api/v1/namespaces/default/pods';
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

let etcd: EtcdProcess;
before(async () => {
  etcd = await startEtcd();
});
after(async () => {
  await etcd.stop();
});

/** One HTTP call over `agent`'s keep-alive connections, so reads and writes go over different connections. */
function call(
  base: string,
  agent: Agent,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ code: number; text: string }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = request(
      new URL(path, base),
      {
        method,
        agent,
        headers: data === undefined ? {} : { 'Content-Type': contentType, 'Content-Length': data.length },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** A 2xx call's decoded body; anything else fails the test with the answer. */
async function json(
  base: string,
  agent: Agent,
  method: string,
  path: string,
  body?: unknown,
  contentType?: string,
): Promise<Obj> {
  const r = await call(base, agent, method, path, body, contentType);
  assert.ok(r.code >= 200 && r.code < 300, `${method} ${path}: ${r.code} ${r.text}`);
  return JSON.parse(r.text) as Obj;
}

/** etcd_request_duration_seconds_count of storage gets of pods, from /metrics. */
async function podStorageGets(base: string, agent: Agent): Promise<number> {
  const text = (await call(base, agent, 'GET', '/metrics')).text;
  const m = /^etcd_request_duration_seconds_count\{operation="get",type="pods"\} (\d+)$/m.exec(text);
  return m === null ? 0 : Number(m[1]);
}

/**
 * WORKERS concurrent loops, each on its own pod: write (status patch, then a full PUT), and at once
 * GET on another connection, which must show that write; likewise a new config map must be readable
 * at once. Config map churn runs alongside, so storage's revision keeps moving past the pods cache's last event.
 */
async function readYourWrites(base: string): Promise<void> {
  const writer = new Agent({ keepAlive: true });
  const reader = new Agent({ keepAlive: true });
  const other = new Agent({ keepAlive: true });
  try {
    const names = Array.from({ length: WORKERS }, (_, i) => `ryw-${i}`);
    for (const n of names) {
      await json(base, writer, 'POST', PODS, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: n },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
      });
    }
    let stop = false;
    const churn = (async () => {
      for (let i = 0; !stop; i++)
        await json(base, other, 'POST', CONFIGMAPS, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `churn-${i}` },
        });
    })();
    try {
      await Promise.all(
        names.map(async (n) => {
          for (let i = 0; i < ROUNDS; i++) {
            const patched = await json(
              base,
              writer,
              'PATCH',
              `${PODS}/${n}/status`,
              { status: { message: `v${i}` } },
              'application/merge-patch+json',
            );
            const got = await json(base, reader, 'GET', `${PODS}/${n}`);
            assert.equal(got.status.message, `v${i}`, `GET of ${n} after status write ${i}`);
            assert.equal(
              got.metadata.resourceVersion,
              patched.metadata.resourceVersion,
              `GET of ${n} after status write ${i}: resourceVersion`,
            );
            got.metadata.labels = { round: String(i) };
            const put = await json(base, writer, 'PUT', `${PODS}/${n}`, got);
            assert.ok(
              Number(put.metadata.resourceVersion) > Number(patched.metadata.resourceVersion),
              'a PUT answers its new resourceVersion',
            );
            const again = await json(base, reader, 'GET', `${PODS}/${n}`);
            assert.deepEqual(again.metadata.labels, { round: String(i) }, `GET of ${n} after PUT ${i}`);
            assert.equal(again.metadata.resourceVersion, put.metadata.resourceVersion);
            const cm = await json(base, other, 'POST', CONFIGMAPS, {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: `seen-${n}-${i}` },
              data: { i: String(i) },
            });
            const back = await json(base, reader, 'GET', `${CONFIGMAPS}/${cm.metadata.name as string}`);
            assert.equal(back.metadata.uid, cm.metadata.uid);
            assert.equal(back.metadata.resourceVersion, cm.metadata.resourceVersion);
          }
        }),
      );
    } finally {
      stop = true;
      await churn;
    }
  } finally {
    writer.destroy();
    reader.destroy();
    other.destroy();
  }
}

async function withServer(args: string[], fn: (s: TestServer) => Promise<void>): Promise<void> {
  const s = await startServer([...INSECURE_PORT, ...args]);
  try {
    await fn(s);
  } finally {
    await s.stop();
  }
}

test('embedded store: a GET without resourceVersion sees every acknowledged write; a current watch cache answers it', async () => {
  await withServer([], async (s) => {
    const agent = new Agent({ keepAlive: true });
    try {
      await readYourWrites(s.url);
      // While writes go on, a GET reads storage whenever the pods cache trails the last acknowledged write (it never
      // waits for the cache). Once quiet, a consistent LIST brings the cache up to storage's revision, and GETs of
      // the pods are then the cache's. The server's own background writes (its identity Lease) can move storage
      // ahead in between, so up to three tries.
      let storageReads = -1;
      for (let attempt = 0; attempt < 3 && storageReads !== 0; attempt++) {
        await json(s.url, agent, 'GET', PODS);
        const before = await podStorageGets(s.url, agent);
        for (let i = 0; i < WORKERS; i++) await json(s.url, agent, 'GET', `${PODS}/ryw-${i}`);
        storageReads = (await podStorageGets(s.url, agent)) - before;
      }
      assert.equal(storageReads, 0, 'GETs of pods after the cache caught up read no storage');
    } finally {
      agent.destroy();
    }
  });
});

test('--watch-cache=false: a GET without resourceVersion sees every acknowledged write', async () => {
  await withServer(['--watch-cache=false'], async (s) => readYourWrites(s.url));
});

test('--etcd-servers: a GET without resourceVersion sees every acknowledged write, read from etcd', async () => {
  await withServer(['--etcd-servers', etcd.clientUrl], async (s) => {
    const agent = new Agent({ keepAlive: true });
    try {
      const before = await podStorageGets(s.url, agent);
      await readYourWrites(s.url);
      // Like upstream, a consistent GET over etcd is an etcd read, and counts as one.
      assert.ok((await podStorageGets(s.url, agent)) >= before + WORKERS * ROUNDS * 2, 'every GET of a pod read etcd');
    } finally {
      agent.destroy();
    }
  });
});

test('a GET with resourceVersion "0" or an older "N" may be served from the cache; a future "N" waits, then times out', async () => {
  await withServer([], async (s) => {
    const agent = new Agent({ keepAlive: true });
    try {
      const made = await json(s.url, agent, 'POST', CONFIGMAPS, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'rv' },
        data: { a: '1' },
      });
      const rv = Number(made.metadata.resourceVersion);
      for (const q of ['0', String(rv), String(rv - 1)]) {
        const got = await json(s.url, agent, 'GET', `${CONFIGMAPS}/rv?resourceVersion=${q}`);
        assert.equal(got.metadata.uid, made.metadata.uid, `resourceVersion=${q}`);
        assert.ok(Number(got.metadata.resourceVersion) >= rv, `resourceVersion=${q}: not older than the write`);
      }
      // Like upstream: a resourceVersion beyond the cache waits up to 3 s, then 504 Timeout with "Too large resource version".
      const future = await call(s.url, agent, 'GET', `${CONFIGMAPS}/rv?resourceVersion=${rv + 1000}`);
      assert.equal(future.code, 504, future.text);
      assert.match(future.text, /Too large resource version/);
    } finally {
      agent.destroy();
    }
  });
});
