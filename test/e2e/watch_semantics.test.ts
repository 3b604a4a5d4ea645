/**
 * Watch semantics over raw HTTP against a real `kscale server`, checked the
 * way client-node and kubectl read a watch (kubectl-wire.md §4): one compact
 * JSON event per line, headers flushed before the first event, bookmarks only
 * on request, timeoutSeconds ending the stream cleanly, a too-old
 * resourceVersion as an ERROR 410 event followed by a close, selectors
 * applied to old and new objects, and Table events on request.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request, type IncomingMessage } from 'node:http';
import { startServer, type TestServer, INSECURE_PORT } from './harness.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- watch events are dynamic JSON
type Obj = Record<string, any>;

interface WatchEvent {
  type: string;
  object: Obj;
}

/** A watch stream being read: every line, the parsed events, and how it ended. */
interface OpenWatch {
  res: IncomingMessage;
  /** Every line received, exactly as sent (without the trailing newline). */
  lines: string[];
  events: WatchEvent[];
  /** Bytes after the last newline (a partial line). */
  tail(): string;
  /** Resolves when the server ends the response: 'end' for a clean end, 'aborted' when cut. */
  ended: Promise<'end' | 'aborted'>;
  /** Resolves with the first event matching `pred` (waiting up to `ms`). */
  waitFor(pred: (e: WatchEvent) => boolean, ms?: number): Promise<WatchEvent>;
  close(): void;
}

/** Opens a watch with raw HTTP; resolves once the response headers arrive (or rejects after `headerMs`). */
function openWatch(
  base: string,
  path: string,
  headers: Record<string, string> = {},
  headerMs = 5_000,
): Promise<OpenWatch> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { headers });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no response headers within ${headerMs} ms for ${path}`));
    }, headerMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.on('response', (res) => {
      clearTimeout(timer);
      res.setEncoding('utf8');
      let buf = '';
      const lines: string[] = [];
      const events: WatchEvent[] = [];
      const waiters: { pred: (e: WatchEvent) => boolean; resolve: (e: WatchEvent) => void }[] = [];
      res.on('data', (chunk: string) => {
        buf += chunk;
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          lines.push(line);
          let ev: WatchEvent;
          try {
            ev = JSON.parse(line) as WatchEvent;
          } catch {
            continue;
          }
          events.push(ev);
          for (const w of [...waiters]) {
            if (w.pred(ev)) {
              waiters.splice(waiters.indexOf(w), 1);
              w.resolve(ev);
            }
          }
        }
      });
      const ended = new Promise<'end' | 'aborted'>((r) => {
        res.once('end', () => r('end'));
        res.once('aborted', () => r('aborted'));
        res.once('error', () => r('aborted'));
      });
      resolve({
        res,
        lines,
        events,
        tail: () => buf,
        ended,
        waitFor(pred, ms = 5_000) {
          const seen = events.find(pred);
          if (seen !== undefined) return Promise.resolve(seen);
          return new Promise((res2, rej) => {
            const t = setTimeout(
              () =>
                rej(
                  new Error(
                    `no matching watch event within ${ms} ms; got ${JSON.stringify(events.map((e) => e.type))}`,
                  ),
                ),
              ms,
            );
            waiters.push({
              pred,
              resolve: (e) => {
                clearTimeout(t);
                res2(e);
              },
            });
          });
        },
        close: () => req.destroy(),
      });
    });
    req.end();
  });
}

/** One plain JSON request; resolves with the status code and parsed body. */
function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ code: number; body: Obj }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = request(new URL(path, base), {
      method,
      headers: data === undefined ? {} : { 'Content-Type': contentType, 'Content-Length': data.length },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          resolve({ code: res.statusCode ?? 0, body: JSON.parse(text) as Obj });
        } catch {
          reject(new Error(`${method} ${path}: ${res.statusCode} non-JSON body: ${text.slice(0, 200)}`));
        }
      });
    });
    req.end(data);
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const pod = (name: string, labels: Record<string, string> = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels },
  spec: { containers: [{ name: 'c', image: 'busybox' }] },
});

async function listRV(base: string, path: string): Promise<string> {
  const r = await call(base, 'GET', path);
  assert.equal(r.code, 200);
  return r.body.metadata.resourceVersion as string;
}

describe('watch semantics', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startServer([...INSECURE_PORT]);
  });
  after(async () => {
    await srv?.stop();
  });

  test('headers are flushed before the first event, on a quiet collection', async () => {
    const rv = await listRV(srv.url, '/api/v1/namespaces/default/configmaps');
    const started = Date.now();
    // Nothing changes in this namespace: the headers must still arrive at once.
    const w = await openWatch(
      srv.url,
      `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}&fieldSelector=metadata.name%3Dnever`,
      {},
      2_000,
    );
    assert.ok(Date.now() - started < 2_000);
    assert.equal(w.res.statusCode, 200);
    assert.match(String(w.res.headers['content-type']), /^application\/json/);
    assert.equal(w.events.length, 0);
    w.close();
  });

  test('every event is one compact JSON object on its own line', async () => {
    const rv = await listRV(srv.url, '/api/v1/namespaces/default/pods');
    const w = await openWatch(srv.url, `/api/v1/namespaces/default/pods?watch=true&resourceVersion=${rv}`);
    for (const n of ['frame-1', 'frame-2', 'frame-3'])
      assert.equal((await call(srv.url, 'POST', '/api/v1/namespaces/default/pods', pod(n, { t: 'frame' }))).code, 201);
    await call(srv.url, 'DELETE', '/api/v1/namespaces/default/pods/frame-2?gracePeriodSeconds=0');
    await w.waitFor((e) => e.type === 'DELETED' && e.object.metadata?.name === 'frame-2');
    w.close();
    assert.ok(w.lines.length >= 4, `lines: ${w.lines.length}`);
    for (const line of w.lines) {
      const parsed = JSON.parse(line) as WatchEvent;
      assert.equal(JSON.stringify(parsed), line, 'each line is compact JSON');
      assert.deepEqual(Object.keys(parsed).sort(), ['object', 'type']);
      assert.ok(['ADDED', 'MODIFIED', 'DELETED'].includes(parsed.type), parsed.type);
      assert.equal(parsed.object.kind, 'Pod');
      assert.equal(parsed.object.apiVersion, 'v1');
      assert.match(parsed.object.metadata.resourceVersion as string, /^\d+$/);
    }
    const added = w.events.filter((e) => e.type === 'ADDED').map((e) => e.object.metadata.name as string);
    assert.deepEqual(added, ['frame-1', 'frame-2', 'frame-3']);
    // Resource versions increase along the stream.
    const rvs = w.events.map((e) => Number(e.object.metadata.resourceVersion));
    assert.deepEqual(
      [...rvs].sort((a, b) => a - b),
      rvs,
    );
    assert.ok(rvs[0]! > Number(rv));
  });

  test('timeoutSeconds ends the stream cleanly, and BOOKMARK only comes with allowWatchBookmarks=true', async () => {
    const rv = await listRV(srv.url, '/api/v1/namespaces/default/secrets');
    const plainStart = Date.now();
    // 3 s: upstream's cacher sends its pre-timeout bookmark 2 s before the deadline, so a 1 s watch may get none.
    const plain = await openWatch(
      srv.url,
      `/api/v1/namespaces/default/secrets?watch=true&resourceVersion=${rv}&timeoutSeconds=3`,
    );
    const withBm = await openWatch(
      srv.url,
      `/api/v1/namespaces/default/secrets?watch=true&resourceVersion=${rv}&timeoutSeconds=3&allowWatchBookmarks=true`,
    );
    assert.equal(await plain.ended, 'end');
    const took = Date.now() - plainStart;
    assert.ok(took >= 2_900 && took < 6_000, `timeoutSeconds=3 closed after ${took} ms`);
    assert.equal(plain.tail(), '', 'no partial line at the end');
    assert.equal(plain.events.filter((e) => e.type === 'BOOKMARK').length, 0, 'no bookmarks unless asked');
    assert.equal(await withBm.ended, 'end');
    assert.equal(withBm.tail(), '');
    const bms = withBm.events.filter((e) => e.type === 'BOOKMARK');
    assert.ok(bms.length >= 1, 'a bookmark was sent');
    for (const b of bms) {
      assert.equal(b.object.kind, 'Secret');
      assert.equal(b.object.apiVersion, 'v1');
      assert.ok(Number(b.object.metadata.resourceVersion) >= Number(rv));
    }
  });

  test('timeoutSeconds=0 means the server default, as upstream: the watch stays open', async () => {
    const w = await openWatch(srv.url, '/api/v1/namespaces/default/secrets?watch=true&timeoutSeconds=0');
    const early = await Promise.race([w.ended, sleep(1_500).then(() => 'open' as const)]);
    w.close();
    assert.equal(early, 'open', 'a zero timeout did not end the watch at once');
  });

  test('a watch without allowWatchBookmarks never gets a BOOKMARK while changes flow', async () => {
    const rv = await listRV(srv.url, '/api/v1/namespaces/default/configmaps');
    const w = await openWatch(
      srv.url,
      `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}&timeoutSeconds=2`,
    );
    for (let i = 0; i < 3; i++) {
      await call(srv.url, 'POST', '/api/v1/namespaces/default/configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `nobm-${i}` },
      });
      await sleep(200);
    }
    assert.equal(await w.ended, 'end');
    assert.deepEqual(
      w.events.map((e) => e.type),
      ['ADDED', 'ADDED', 'ADDED'],
    );
  });

  test('labelSelector on a watch: an object that stops matching arrives as DELETED, one that starts matching as ADDED', async () => {
    const rv = await listRV(srv.url, '/api/v1/namespaces/default/pods');
    const w = await openWatch(
      srv.url,
      `/api/v1/namespaces/default/pods?watch=true&resourceVersion=${rv}&labelSelector=app%3Dweb`,
    );
    assert.equal(
      (await call(srv.url, 'POST', '/api/v1/namespaces/default/pods', pod('sel-db', { app: 'db' }))).code,
      201,
    );
    assert.equal(
      (await call(srv.url, 'POST', '/api/v1/namespaces/default/pods', pod('sel-web', { app: 'web' }))).code,
      201,
    );
    const added = await w.waitFor((e) => e.type === 'ADDED');
    assert.equal(added.object.metadata.name, 'sel-web');
    const moved = await call(
      srv.url,
      'PATCH',
      '/api/v1/namespaces/default/pods/sel-web',
      { metadata: { labels: { app: 'db' } } },
      'application/merge-patch+json',
    );
    assert.equal(moved.code, 200);
    const del = await w.waitFor((e) => e.type === 'DELETED');
    // Like upstream's cacheWatcher: the previous object's content, at the event's resourceVersion.
    assert.equal(del.object.metadata.name, 'sel-web');
    assert.equal(del.object.metadata.labels.app, 'web');
    assert.equal(del.object.metadata.resourceVersion, moved.body.metadata.resourceVersion);
    const back = await call(
      srv.url,
      'PATCH',
      '/api/v1/namespaces/default/pods/sel-db',
      { metadata: { labels: { app: 'web' } } },
      'application/merge-patch+json',
    );
    assert.equal(back.code, 200);
    const readded = await w.waitFor((e) => e.type === 'ADDED' && e.object.metadata.name === 'sel-db');
    assert.equal(readded.object.metadata.resourceVersion, back.body.metadata.resourceVersion);
    await call(
      srv.url,
      'PATCH',
      '/api/v1/namespaces/default/pods/sel-db',
      { metadata: { annotations: { touched: 'yes' } } },
      'application/merge-patch+json',
    );
    const mod = await w.waitFor((e) => e.type === 'MODIFIED');
    assert.equal(mod.object.metadata.name, 'sel-db');
    await sleep(200);
    w.close();
    assert.deepEqual(
      w.events.map((e) => `${e.type}:${e.object.metadata.name}`),
      ['ADDED:sel-web', 'DELETED:sel-web', 'ADDED:sel-db', 'MODIFIED:sel-db'],
    );
  });

  test('fieldSelector on a watch filters server-side, with DELETED when a field stops matching', async () => {
    const node = (name: string): Obj => ({ apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: {} });
    for (const n of ['fs-a', 'fs-b']) assert.equal((await call(srv.url, 'POST', '/api/v1/nodes', node(n))).code, 201);
    const rv = await listRV(srv.url, '/api/v1/nodes');
    const w = await openWatch(
      srv.url,
      `/api/v1/nodes?watch=true&resourceVersion=${rv}&fieldSelector=spec.unschedulable%3Dtrue`,
    );
    const smp = 'application/strategic-merge-patch+json';
    assert.equal(
      (await call(srv.url, 'PATCH', '/api/v1/nodes/fs-a', { spec: { unschedulable: true } }, smp)).code,
      200,
    );
    const a = await w.waitFor((e) => e.type === 'ADDED');
    assert.equal(a.object.metadata.name, 'fs-a');
    assert.equal(
      (await call(srv.url, 'PATCH', '/api/v1/nodes/fs-b', { metadata: { labels: { x: 'y' } } }, smp)).code,
      200,
    );
    assert.equal(
      (await call(srv.url, 'PATCH', '/api/v1/nodes/fs-a', { spec: { unschedulable: null } }, smp)).code,
      200,
    );
    const d = await w.waitFor((e) => e.type === 'DELETED');
    assert.equal(d.object.metadata.name, 'fs-a');
    assert.equal(d.object.spec.unschedulable, true);
    await sleep(200);
    w.close();
    assert.deepEqual(
      w.events.map((e) => `${e.type}:${e.object.metadata.name}`),
      ['ADDED:fs-a', 'DELETED:fs-a'],
    );
  });

  test("the scheduler's status.phase selector on pods: a pod that finishes leaves the watch as DELETED, in a LIST too", async () => {
    const rv = await listRV(srv.url, '/api/v1/pods');
    const sel = 'fieldSelector=status.phase!%3DSucceeded,status.phase!%3DFailed';
    const w = await openWatch(srv.url, `/api/v1/pods?watch=true&resourceVersion=${rv}&${sel}`);
    for (const n of ['ph-run', 'ph-done'])
      assert.equal((await call(srv.url, 'POST', '/api/v1/namespaces/default/pods', pod(n))).code, 201);
    const status = (phase: string): Obj => ({ status: { phase } });
    const merge = 'application/merge-patch+json';
    const path = (n: string): string => `/api/v1/namespaces/default/pods/${n}/status`;
    assert.equal((await call(srv.url, 'PATCH', path('ph-run'), status('Running'), merge)).code, 200);
    assert.equal((await call(srv.url, 'PATCH', path('ph-done'), status('Succeeded'), merge)).code, 200);
    const d = await w.waitFor((e) => e.type === 'DELETED');
    assert.equal(d.object.metadata.name, 'ph-done');
    assert.equal(d.object.status.phase, 'Pending', 'DELETED carries the last state that matched');
    await sleep(200);
    w.close();
    assert.deepEqual(
      w.events.map((e) => `${e.type}:${e.object.metadata.name}`),
      ['ADDED:ph-run', 'ADDED:ph-done', 'MODIFIED:ph-run', 'DELETED:ph-done'],
    );
    const list = await call(srv.url, 'GET', `/api/v1/namespaces/default/pods?${sel}`);
    const names = (list.body as { items: Obj[] }).items.map((o) => (o.metadata as Obj).name);
    assert.ok(names.includes('ph-run') && !names.includes('ph-done'), JSON.stringify(names));
  });

  test('a watch with a Table Accept header gets one-row Table events', async () => {
    const rv = await listRV(srv.url, '/api/v1/namespaces/default/pods');
    const w = await openWatch(srv.url, `/api/v1/namespaces/default/pods?watch=true&resourceVersion=${rv}`, {
      Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    });
    await call(srv.url, 'POST', '/api/v1/namespaces/default/pods', pod('tbl-1'));
    await call(srv.url, 'POST', '/api/v1/namespaces/default/pods', pod('tbl-2'));
    await w.waitFor((e) => e.type === 'ADDED' && e.object.rows?.[0]?.cells?.[0] === 'tbl-2');
    w.close();
    assert.equal(w.events.length, 2);
    for (const e of w.events) {
      assert.equal(e.object.kind, 'Table');
      assert.equal(e.object.apiVersion, 'meta.k8s.io/v1');
      assert.equal(e.object.rows.length, 1);
      const o = e.object.rows[0].object;
      assert.equal(o.kind, 'PartialObjectMetadata');
      assert.equal(o.metadata.namespace, 'default');
    }
    assert.ok(Array.isArray(w.events[0]!.object.columnDefinitions) && w.events[0]!.object.columnDefinitions.length > 0);
    assert.equal(w.events[0]!.object.columnDefinitions[0].name, 'Name');
  });

  test('a plain watch (Accept: */*, like client-node) gets JSON objects', async () => {
    const rv = await listRV(srv.url, '/api/v1/namespaces/default/pods');
    const w = await openWatch(srv.url, `/api/v1/namespaces/default/pods?watch=true&resourceVersion=${rv}`, {
      Accept: '*/*',
    });
    await call(srv.url, 'POST', '/api/v1/namespaces/default/pods', pod('star-1'));
    const e = await w.waitFor(() => true);
    w.close();
    assert.equal(e.object.kind, 'Pod');
  });
});

describe('watch from a compacted resourceVersion', () => {
  const args = ['--etcd-compaction-interval', '1s'];
  let srv: TestServer;
  before(async () => {
    srv = await startServer([...INSECURE_PORT, ...args]);
  });
  after(async () => {
    await srv?.stop();
  });

  test('gets an ERROR event with a 410 Expired Status, then the stream closes', async () => {
    const old = await listRV(srv.url, '/api/v1/namespaces/default/configmaps');
    // Write, wait past two compaction ticks so the old revision is compacted away, then restart on the
    // same data: a watch cache starts its window at the current revision, so the old one is too old there too.
    for (let i = 0; i < 5; i++)
      await call(srv.url, 'POST', '/api/v1/namespaces/default/configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `old-${i}` },
      });
    await sleep(2_500);
    const exited = new Promise((r) => srv.process.once('exit', r));
    srv.process.kill('SIGTERM');
    await exited;
    srv = await startServer([...INSECURE_PORT, ...args], srv.dir);
    let w: OpenWatch | undefined;
    for (let attempt = 0; attempt < 10; attempt++) {
      if (attempt > 0) await sleep(500);
      w = await openWatch(srv.url, `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${old}`);
      const first = await w.waitFor(() => true, 3_000).catch(() => undefined);
      if (first?.type === 'ERROR') break;
      w.close();
      w = undefined;
    }
    assert.ok(w !== undefined, 'the old resourceVersion was never compacted');
    assert.equal(w.res.statusCode, 200);
    const result = await Promise.race([w.ended, sleep(3_000).then(() => 'still open' as const)]);
    assert.equal(result, 'end', 'the server closes the stream after the 410');
    assert.equal(w.events.length, 1, `exactly one event: ${w.lines.join('\n')}`);
    const st = w.events[0]!.object;
    assert.equal(st.kind, 'Status');
    assert.equal(st.apiVersion, 'v1');
    assert.equal(st.status, 'Failure');
    assert.equal(st.reason, 'Expired');
    assert.equal(st.code, 410);
    assert.match(st.message as string, /too old resource version/);
    assert.equal(w.lines[0], JSON.stringify(w.events[0]));
  });
});
