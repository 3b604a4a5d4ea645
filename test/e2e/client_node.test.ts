/**
 * @kubernetes/client-node 1.4.0 against a real `kscale server`: typed CRUD,
 * the three patch types it can send, ApiException bodies, KubernetesObjectApi,
 * and an informer with a field selector through its whole life (start, a
 * server-side close, an ERROR 410 event, an HTTP 410). Every request goes
 * through a small recording proxy, so the test also checks what the client
 * really sends (kubectl-wire.md §6) instead of assuming it. The proxy can
 * answer a watch with an HTTP status of our choosing, because kscale, like
 * kube-apiserver, reports an expired watch as an ERROR event on a 200 stream.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ApiException,
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  ListWatch,
  PatchStrategy,
  Watch,
  setHeaderOptions,
  type KubernetesObject,
  type V1Pod,
  type V1PodList,
} from '@kubernetes/client-node';
import { startServer, type TestServer, INSECURE_PORT } from './harness.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Status bodies and watch objects are dynamic JSON
type Obj = Record<string, any>;

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  status?: number;
}

/**
 * A pass-through HTTP proxy that records requests and can answer the next watches with a given status.
 * While the server restarts (connection refused) it holds requests and retries, like a load balancer
 * in front of HA API servers, so clients see a server-side close and then the new server.
 */
class RecordingProxy {
  readonly seen: Seen[] = [];
  /** Statuses to answer the next watch requests with, instead of forwarding them. */
  readonly failNextWatches: number[] = [];
  private server!: Server;
  url = '';

  constructor(public target: string) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const s: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers };
      this.seen.push(s);
      const isWatch = new URL(s.url, 'http://x').searchParams.get('watch') === 'true';
      if (isWatch && this.failNextWatches.length > 0) {
        const code = this.failNextWatches.shift()!;
        s.status = code;
        const reason = code === 410 ? 'Expired' : 'InternalError';
        const body = JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `injected ${code}`,
          reason,
          code,
        });
        res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
        res.end(body);
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.forward(s, Buffer.concat(chunks), res, Date.now() + 15_000));
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private forward(s: Seen, body: Buffer, res: import('node:http').ServerResponse, giveUpAt: number): void {
    const t = new URL(this.target);
    const up = request({ host: t.hostname, port: t.port, method: s.method, path: s.url, headers: s.headers }, (ur) => {
      s.status = ur.statusCode;
      res.writeHead(ur.statusCode ?? 502, ur.headers);
      // Watches must reach the client at once, event by event.
      res.flushHeaders();
      ur.pipe(res);
      // A server that dies mid-stream: end the client's stream cleanly, as kube-apiserver's graceful
      // shutdown does (see the graceful-shutdown test below).
      ur.on('error', () => undefined);
      ur.on('close', () => {
        if (!res.writableEnded) res.end();
      });
    });
    up.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED' && Date.now() < giveUpAt && !res.destroyed) {
        setTimeout(() => this.forward(s, body, res, giveUpAt), 100);
        return;
      }
      res.destroy();
    });
    res.on('close', () => up.destroy());
    up.end(body);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  /** Watch requests seen so far, with their query. */
  watches(): { query: URLSearchParams; s: Seen }[] {
    return this.seen
      .map((s) => ({ query: new URL(s.url, 'http://x').searchParams, s }))
      .filter((w) => w.query.get('watch') === 'true');
  }
}

/** A kubeconfig for client-node pointing at `server` (http:// needs insecure-skip-tls-verify). */
function kubeConfigFor(server: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'kscale', server, skipTLSVerify: true }],
    users: [{ name: 'admin' }],
    contexts: [{ name: 'kscale', cluster: 'kscale', user: 'admin', namespace: 'default' }],
    currentContext: 'kscale',
  });
  return kc;
}

/** One Watch event as the informer received it. */
interface Received {
  type: string;
  object: Obj;
}

/** A Watch that records every event it hands to the informer. */
class RecordingWatch extends Watch {
  readonly events: Received[] = [];
  override watch(
    path: string,
    queryParams: Record<string, string>,
    callback: (phase: string, apiObj: Obj, watchObj?: Obj) => void,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    return super.watch(
      path,
      queryParams,
      (phase, obj, raw) => {
        this.events.push({ type: phase, object: obj });
        callback(phase, obj, raw);
      },
      done,
    );
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(what: string, cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

const podOn = (name: string, node: string): V1Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app: 'informer' } },
  spec: { nodeName: node, containers: [{ name: 'c', image: 'busybox' }] },
});

/** Parses the raw Status string client-node puts in ApiException.body. */
function statusOf(err: unknown): Obj {
  assert.ok(err instanceof ApiException, `an ApiException: ${String(err)}`);
  assert.equal(typeof err.body, 'string', 'the body is the raw response text');
  return JSON.parse(err.body as string) as Obj;
}

describe('client-node 1.4.0: typed API', () => {
  let srv: TestServer;
  let proxy: RecordingProxy;
  let core: CoreV1Api;
  let kc: KubeConfig;
  before(async () => {
    srv = await startServer([...INSECURE_PORT]);
    proxy = new RecordingProxy(srv.url);
    await proxy.start();
    kc = kubeConfigFor(proxy.url);
    core = kc.makeApiClient(CoreV1Api);
  });
  after(async () => {
    await proxy?.stop();
    await srv?.stop();
  });

  test('the harness kubeconfig works as written (http:// with insecure-skip-tls-verify)', async () => {
    const direct = new KubeConfig();
    direct.loadFromFile(srv.kubeconfig);
    const list = await direct.makeApiClient(CoreV1Api).listNamespace();
    assert.ok(list.items.some((n) => n.metadata?.name === 'default'));
  });

  test('listNode, plain GET with no query', async () => {
    // With a spec, as a kubelet registers it (see the test below for a node without one).
    await core.createNode({
      body: {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'cn-node-1', labels: { zone: 'a' } },
        spec: { providerID: 'kscale://cn-node-1' },
      },
    });
    const nodes = await core.listNode();
    assert.equal(nodes.kind, 'NodeList');
    assert.ok(nodes.items.some((n) => n.metadata?.name === 'cn-node-1'));
    assert.match(nodes.metadata?.resourceVersion ?? '', /^\d+$/);
    const get = proxy.seen.filter((s) => s.method === 'GET' && s.url.startsWith('/api/v1/nodes'));
    assert.equal(get.at(-1)!.url, '/api/v1/nodes');
  });

  test('createNamespacedPod, read, replace, delete', async () => {
    const created = await core.createNamespacedPod({ namespace: 'default', body: podOn('cn-pod', 'node-x') });
    assert.equal(created.metadata?.name, 'cn-pod');
    assert.equal(created.metadata?.namespace, 'default');
    assert.ok(created.metadata?.uid);
    // Defaults came back, decoded into the typed model.
    assert.equal(created.spec?.restartPolicy, 'Always');
    assert.equal(created.status?.phase, 'Pending');
    const post = proxy.seen
      .filter((s) => s.method === 'POST' && s.url.startsWith('/api/v1/namespaces/default/pods'))
      .at(-1)!;
    assert.equal(post.url, '/api/v1/namespaces/default/pods');
    assert.equal(post.status, 201);

    const read = await core.readNamespacedPod({ name: 'cn-pod', namespace: 'default' });
    assert.equal(read.metadata?.resourceVersion, created.metadata?.resourceVersion);
    assert.ok(read.metadata?.creationTimestamp instanceof Date);

    read.metadata!.labels = { ...read.metadata!.labels, replaced: 'yes' };
    const replaced = await core.replaceNamespacedPod({ name: 'cn-pod', namespace: 'default', body: read });
    assert.equal(replaced.metadata?.labels?.replaced, 'yes');
    assert.ok(Number(replaced.metadata?.resourceVersion) > Number(read.metadata?.resourceVersion));

    await core.deleteNamespacedPod({ name: 'cn-pod', namespace: 'default', gracePeriodSeconds: 0 });
    await assert.rejects(
      core.readNamespacedPod({ name: 'cn-pod', namespace: 'default' }),
      (err) => statusOf(err).code === 404,
    );
  });

  test("a JSON patch (client-node's default patch type) updates a node", async () => {
    const node = await core.patchNode({
      name: 'cn-node-1',
      body: [
        { op: 'add', path: '/metadata/labels/patched', value: 'json' },
        { op: 'add', path: '/spec/unschedulable', value: true },
      ],
    });
    assert.equal(node.metadata?.labels?.patched, 'json');
    assert.equal(node.metadata?.labels?.zone, 'a');
    assert.equal(node.spec?.unschedulable, true);
    const sent = proxy.seen.filter((s) => s.method === 'PATCH').at(-1)!;
    assert.equal(sent.headers['content-type'], 'application/json-patch+json');
    // A failing "test" operation is rejected and changes nothing.
    await assert.rejects(
      core.patchNode({
        name: 'cn-node-1',
        body: [
          { op: 'test', path: '/metadata/labels/patched', value: 'other' },
          { op: 'remove', path: '/metadata/labels/zone' },
        ],
      }),
      (err) => statusOf(err).code === 422,
    );
    assert.equal((await core.readNode({ name: 'cn-node-1' })).metadata?.labels?.zone, 'a');
  });

  test('a node created without spec reads back with spec {}, like upstream, so a JSON patch can add /spec/unschedulable', async () => {
    await core.createNode({ body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'cn-node-bare' } } });
    const node = await core.patchNode({
      name: 'cn-node-bare',
      body: [{ op: 'add', path: '/spec/unschedulable', value: true }],
    });
    assert.equal(node.spec?.unschedulable, true);
  });

  test('a merge patch via setHeaderOptions, with null deleting a field', async () => {
    const node = await core.patchNode(
      {
        name: 'cn-node-1',
        body: { metadata: { labels: { patched: 'merge', zone: null } }, spec: { unschedulable: null } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    assert.equal(node.metadata?.labels?.patched, 'merge');
    assert.equal(node.metadata?.labels?.zone, undefined);
    assert.equal(node.spec?.unschedulable, undefined);
    assert.equal(
      proxy.seen.filter((s) => s.method === 'PATCH').at(-1)!.headers['content-type'],
      'application/merge-patch+json',
    );
  });

  test('a strategic merge patch via setHeaderOptions merges lists by key', async () => {
    await core.createNamespacedPod({ namespace: 'default', body: podOn('cn-smp', 'node-x') });
    const pod = await core.patchNamespacedPod(
      { name: 'cn-smp', namespace: 'default', body: { spec: { containers: [{ name: 'c', image: 'busybox:2' }] } } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    assert.equal(pod.spec?.containers.length, 1);
    assert.equal(pod.spec?.containers[0]?.image, 'busybox:2');
    assert.equal(
      pod.spec?.containers[0]?.terminationMessagePath,
      '/dev/termination-log',
      'merged into the existing container',
    );
  });

  test('server-side apply via setHeaderOptions with fieldManager and force: creates, updates, and owns fields', async () => {
    const ssa = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cn-ssa', namespace: 'default' },
      data: { a: '1' },
    };
    const created = await core.patchNamespacedConfigMap(
      { name: 'cn-ssa', namespace: 'default', body: cm, fieldManager: 'me', force: true },
      ssa,
    );
    assert.equal(created.data?.a, '1');
    const sent = proxy.seen.filter((s) => s.method === 'PATCH').at(-1)!;
    assert.equal(sent.headers['content-type'], 'application/apply-patch+yaml');
    const q = new URL(sent.url, 'http://x').searchParams;
    assert.equal(q.get('fieldManager'), 'me');
    assert.equal(q.get('force'), 'true');
    assert.equal(sent.status, 201, 'apply of a missing object creates it');
    assert.ok(created.metadata?.managedFields?.some((m) => m.manager === 'me' && m.operation === 'Apply'));

    // Another manager takes field "a" over with force; without force it conflicts.
    await assert.rejects(
      core.patchNamespacedConfigMap(
        { name: 'cn-ssa', namespace: 'default', body: { ...cm, data: { a: '2' } }, fieldManager: 'other' },
        ssa,
      ),
      (err) => {
        const s = statusOf(err);
        return s.code === 409 && s.reason === 'Conflict';
      },
    );
    const forced = await core.patchNamespacedConfigMap(
      { name: 'cn-ssa', namespace: 'default', body: { ...cm, data: { a: '2' } }, fieldManager: 'other', force: true },
      ssa,
    );
    assert.equal(forced.data?.a, '2');
    // "me" applies without "a": it no longer owns it, so "a" stays.
    const again = await core.patchNamespacedConfigMap(
      { name: 'cn-ssa', namespace: 'default', body: { ...cm, data: { b: '3' } }, fieldManager: 'me', force: true },
      ssa,
    );
    assert.deepEqual(again.data, { a: '2', b: '3' });
  });

  test('404 and 409 throw ApiException with .code and a Status .body', async () => {
    try {
      await core.readNamespacedPod({ name: 'no-such-pod', namespace: 'default' });
      assert.fail('expected a 404');
    } catch (err) {
      const s = statusOf(err);
      assert.equal((err as ApiException<string>).code, 404);
      assert.deepEqual(
        {
          kind: s.kind,
          apiVersion: s.apiVersion,
          status: s.status,
          reason: s.reason,
          code: s.code,
          message: s.message,
          details: s.details,
        },
        {
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          reason: 'NotFound',
          code: 404,
          message: 'pods "no-such-pod" not found',
          details: { name: 'no-such-pod', kind: 'pods' },
        },
      );
    }
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'cn-dup' } } });
    try {
      await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'cn-dup' } } });
      assert.fail('expected a 409');
    } catch (err) {
      const s = statusOf(err);
      assert.equal((err as ApiException<string>).code, 409);
      assert.equal(s.kind, 'Status');
      assert.equal(s.reason, 'AlreadyExists');
      assert.equal(s.code, 409);
      assert.equal(s.message, 'configmaps "cn-dup" already exists');
    }
    // A stale resourceVersion on replace is a 409 Conflict.
    const cur = await core.readNamespacedConfigMap({ name: 'cn-dup', namespace: 'default' });
    await core.replaceNamespacedConfigMap({ name: 'cn-dup', namespace: 'default', body: { ...cur, data: { x: '1' } } });
    await assert.rejects(
      core.replaceNamespacedConfigMap({ name: 'cn-dup', namespace: 'default', body: { ...cur, data: { x: '2' } } }),
      (err) => {
        const s = statusOf(err);
        return (err as ApiException<string>).code === 409 && s.reason === 'Conflict';
      },
    );
  });

  test('KubernetesObjectApi create and read, after legacy discovery', async () => {
    const client = KubernetesObjectApi.makeApiClient(kc);
    const before = proxy.seen.length;
    const dep: KubernetesObject & Obj = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'cn-dep', namespace: 'default' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'cn-dep' } },
        template: { metadata: { labels: { app: 'cn-dep' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
      },
    };
    const created = (await client.create(dep)) as Obj;
    assert.equal(created.kind, 'Deployment');
    assert.equal(created.metadata.name, 'cn-dep');
    assert.equal(created.spec.replicas, 2);
    const read = (await client.read({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'cn-dep', namespace: 'default' },
    })) as Obj;
    assert.equal(read.metadata.uid, created.metadata.uid);
    const cm = (await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cn-obj', namespace: 'default' },
    })) as Obj;
    assert.equal(cm.kind, 'ConfigMap');
    const urls = proxy.seen.slice(before).map((s) => `${s.method} ${s.url}`);
    assert.ok(urls.includes('GET /apis/apps/v1'), `discovery of apps/v1: ${urls.join(', ')}`);
    assert.ok(urls.includes('GET /api/v1'), `discovery of v1: ${urls.join(', ')}`);
    await assert.rejects(
      client.read({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'missing', namespace: 'default' } }),
      (err) => statusOf(err).code === 404,
    );
  });
});

/** An informer on node-a's pods, built like the wire reference's example, with recording around it. */
function nodeAInformer(kc: KubeConfig): {
  informer: ListWatch<V1Pod>;
  watch: RecordingWatch;
  lists: () => number;
  cache: Map<string, V1Pod>;
  errors: unknown[];
} {
  const core = kc.makeApiClient(CoreV1Api);
  let lists = 0;
  const listFn = async (): Promise<V1PodList> => {
    lists++;
    return core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=node-a' });
  };
  const watch = new RecordingWatch(kc);
  const informer = new ListWatch<V1Pod>('/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a', watch, listFn, false);
  const cache = new Map<string, V1Pod>();
  const errors: unknown[] = [];
  informer.on('add', (p) => cache.set(p.metadata!.name!, p));
  informer.on('update', (p) => cache.set(p.metadata!.name!, p));
  informer.on('delete', (p) => cache.delete(p.metadata!.name!));
  informer.on('error', (e) => errors.push(e));
  return { informer, watch, lists: () => lists, cache, errors };
}

describe('client-node 1.4.0: informer with a field selector', () => {
  let srv: TestServer;
  let proxy: RecordingProxy;
  let kc: KubeConfig;
  let core: CoreV1Api;
  before(async () => {
    // Watches without timeoutSeconds last 2-4 s, so the server closes streams during the test.
    srv = await startServer([...INSECURE_PORT, '--min-request-timeout', '2']);
    proxy = new RecordingProxy(srv.url);
    await proxy.start();
    kc = kubeConfigFor(proxy.url);
    core = kc.makeApiClient(CoreV1Api);
  });
  after(async () => {
    await proxy?.stop();
    await srv?.stop();
  });

  test('start() resolves promptly, only node-a pods arrive, and it re-watches without a relist when the server closes the stream', async () => {
    await core.createNamespacedPod({ namespace: 'default', body: podOn('pre-a', 'node-a') });
    await core.createNamespacedPod({ namespace: 'default', body: podOn('pre-b', 'node-b') });
    const { informer, watch, lists, cache, errors } = nodeAInformer(kc);
    const t0 = Date.now();
    await informer.start();
    assert.ok(Date.now() - t0 < 2_000, `start() took ${Date.now() - t0} ms`);
    try {
      assert.deepEqual([...cache.keys()], ['pre-a']);
      await until('the first watch request', () => proxy.watches().length >= 1);
      const first = proxy.watches()[0]!;
      // What client-node sends (kubectl-wire.md §6).
      assert.equal(first.s.url.split('?')[0], '/api/v1/pods');
      assert.equal(first.query.get('fieldSelector'), 'spec.nodeName=node-a');
      assert.match(first.query.get('resourceVersion') ?? '', /^\d+$/);
      assert.equal(first.query.get('allowWatchBookmarks'), null);
      assert.equal(first.query.get('timeoutSeconds'), null);
      assert.equal(first.s.headers.accept, '*/*');
      const listReq = proxy.seen.find((s) => s.url.startsWith('/api/v1/pods?') && !s.url.includes('watch='))!;
      assert.equal(listReq.url, '/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a');

      for (let i = 0; i < 3; i++) {
        await core.createNamespacedPod({ namespace: 'default', body: podOn(`live-a-${i}`, 'node-a') });
        await core.createNamespacedPod({ namespace: 'default', body: podOn(`live-b-${i}`, 'node-b') });
      }
      await until('node-a pods in the cache', () => cache.size === 4);
      // Filtered server-side: no node-b pod was ever on the wire to this watch.
      assert.ok(watch.events.length >= 3);
      for (const e of watch.events)
        assert.equal(e.object.spec?.nodeName, 'node-a', `${e.type} ${e.object.metadata?.name}`);

      // The server closes the stream after 2-4 s; the informer re-watches from its last RV, with no relist.
      await until('a re-watch after the server closed the stream', () => proxy.watches().length >= 2, 8_000);
      const lastRV = watch.events.at(-1)!.object.metadata.resourceVersion as string;
      const second = proxy.watches()[1]!;
      assert.equal(second.query.get('resourceVersion'), lastRV);
      assert.equal(second.query.get('fieldSelector'), 'spec.nodeName=node-a');
      assert.equal(lists(), 1, 'no relist');
      // The re-watch is live: a new node-a pod and a deletion arrive.
      await core.createNamespacedPod({ namespace: 'default', body: podOn('after-rewatch', 'node-a') });
      await core.deleteNamespacedPod({ name: 'live-a-0', namespace: 'default', gracePeriodSeconds: 0 });
      await until('the re-watch delivers', () => cache.has('after-rewatch') && !cache.has('live-a-0'));
      assert.equal(lists(), 1);
      assert.deepEqual(errors, []);
    } finally {
      await informer.stop();
    }
  });

  test('an HTTP 410 on the watch request makes it relist', async () => {
    const { informer, lists, cache, errors } = nodeAInformer(kc);
    await informer.start();
    try {
      const startWatches = proxy.watches().length;
      assert.equal(lists(), 1);
      // The next watch (after this one's server-side close) is answered 410 Gone.
      proxy.failNextWatches.push(410);
      await until(
        'the injected 410',
        () => proxy.watches().some((w, i) => i >= startWatches && w.s.status === 410),
        8_000,
      );
      await until('a relist after HTTP 410', () => lists() === 2, 5_000);
      const after410 = proxy.watches().slice(startWatches);
      // The proxy logs a request when it arrives and its status when the server answers: wait for both.
      await until(
        'a watch after the relist, answered',
        () => {
          const w = proxy.watches();
          return w.length > startWatches + after410.length && w.at(-1)!.s.status !== undefined;
        },
        5_000,
      );
      const next = proxy.watches().at(-1)!;
      assert.equal(next.s.status, 200);
      assert.match(next.query.get('resourceVersion') ?? '', /^\d+$/, 'the new watch starts from the new list RV');
      await core.createNamespacedPod({ namespace: 'default', body: podOn('after-410', 'node-a') });
      await until('the informer is live after the relist', () => cache.has('after-410'));
      assert.deepEqual(errors, []);
    } finally {
      await informer.stop();
    }
  });

  test('any other non-200 watch status fires the error callback and stops the informer for good', async () => {
    const { informer, lists, errors } = nodeAInformer(kc);
    await informer.start();
    try {
      const startWatches = proxy.watches().length;
      proxy.failNextWatches.push(500);
      await until('the error callback', () => errors.length === 1, 8_000);
      assert.equal((errors[0] as { statusCode?: number }).statusCode, 500);
      const n = proxy.watches().length;
      assert.ok(n > startWatches);
      await sleep(1_500);
      assert.equal(proxy.watches().length, n, 'no further watch');
      assert.equal(lists(), 1, 'no relist');
    } finally {
      await informer.stop();
    }
  });
});

test("kscale ends open watch streams cleanly on SIGTERM, like kube-apiserver's graceful shutdown, so client-node re-watches", async () => {
  const srv = await startServer([...INSECURE_PORT]);
  try {
    const ended = await new Promise<string>((resolve) => {
      const req = request(new URL('/api/v1/namespaces/default/configmaps?watch=true', srv.url));
      req.on('error', () => resolve('error'));
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve('end'));
        res.on('aborted', () => resolve('aborted'));
        setTimeout(() => srv.process.kill('SIGTERM'), 200);
      });
      req.end();
    });
    assert.equal(ended, 'end');
  } finally {
    await srv.stop();
  }
});

describe('client-node 1.4.0: informer after an expired resourceVersion', () => {
  const args = ['--min-request-timeout', '2', '--etcd-compaction-interval', '1s'];
  let srv: TestServer;
  let proxy: RecordingProxy;
  let kc: KubeConfig;
  let core: CoreV1Api;
  before(async () => {
    srv = await startServer([...INSECURE_PORT, ...args]);
    proxy = new RecordingProxy(srv.url);
    await proxy.start();
    kc = kubeConfigFor(proxy.url);
    core = kc.makeApiClient(CoreV1Api);
  });
  after(async () => {
    await proxy?.stop();
    await srv?.stop();
  });

  test('an ERROR 410 event followed by the close makes it relist, and the cache stays right', async () => {
    await core.createNamespacedPod({ namespace: 'default', body: podOn('exp-a', 'node-a') });
    const { informer, watch, lists, cache, errors } = nodeAInformer(kc);
    await informer.start();
    try {
      assert.deepEqual([...cache.keys()], ['exp-a']);
      // Writes the informer does not see move the store's revision on; compaction
      // overtakes the informer's RV. A restart on the same data then cuts the stream, and
      // the re-watch from that RV is too old both for storage and for a watch cache, whose
      // window starts at the revision it started at.
      const direct = kubeConfigFor(srv.url).makeApiClient(CoreV1Api);
      for (let i = 0; i < 20; i++)
        await direct.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: `churn-${i}` } } });
      await sleep(2_500);
      const exited = new Promise((r) => srv.process.once('exit', r));
      srv.process.kill('SIGTERM');
      await exited;
      srv = await startServer([...INSECURE_PORT, ...args], srv.dir);
      // Meanwhile (as far as the informer knows) a node-a pod went away; the relist must notice it.
      await kubeConfigFor(srv.url)
        .makeApiClient(CoreV1Api)
        .deleteNamespacedPod({ name: 'exp-a', namespace: 'default', gracePeriodSeconds: 0 });
      proxy.target = srv.url;
      await until('a relist', () => lists() === 2, 20_000).catch((err: Error) => {
        throw new Error(
          `${err.message}; watches ${JSON.stringify(proxy.watches().map((w) => [w.query.get('resourceVersion'), w.s.status]))}; events ${JSON.stringify(watch.events.map((e) => [e.type, e.object.metadata?.resourceVersion ?? e.object.code]))}; errors ${String(errors)}`,
        );
      });
      await until('the relist drops the deleted pod', () => !cache.has('exp-a'));
      const err = watch.events.find((e) => e.type === 'ERROR');
      assert.ok(err !== undefined, 'an ERROR event came first');
      assert.equal(err.object.code, 410);
      assert.equal(err.object.reason, 'Expired');
      assert.equal(err.object.kind, 'Status');
      // The ERROR came on a 200 stream (what kscale and kube-apiserver send), not as an HTTP status.
      // A re-watch sent while the old server was going down may have had its connection cut before
      // any answer (no status): only the answered ones count, and there must be some after the restart.
      const answered = proxy.watches().filter((w) => w.s.status !== undefined);
      assert.ok(answered.length >= 2, `answered watches: ${answered.length}`);
      assert.deepEqual(
        answered.map((w) => w.s.status).filter((code) => code !== 200),
        [],
        'every answered watch was a 200 stream',
      );
      await core.createNamespacedPod({ namespace: 'default', body: podOn('exp-after', 'node-a') });
      await until('the informer is live after the relist', () => cache.has('exp-after'));
      assert.deepEqual([...cache.keys()], ['exp-after']);
      assert.deepEqual(errors, []);
    } finally {
      await informer.stop();
    }
  });
});
