/**
 * A rolling restart of three API servers behind HAProxy, the everyday HA action, under a client load through the
 * load balancer: a client-node informer on ConfigMaps and four writers. Each server in turn gets SIGTERM: /readyz
 * fails, it serves on for --shutdown-delay-duration (3 s, above HAProxy's two 1 s checks) with every response
 * closing its connection, then ends its watches cleanly and drains; it is started again and rejoins before the
 * next. What counts as a client-visible error: any write that is not answered 201 (a writer retries only what
 * client-go retries by itself, a 429 or a 5xx carrying Retry-After), and any error the informer reports (a watch
 * stream that ends cleanly is re-opened by the informer from its last resourceVersion, as client-go's reflector
 * does). Zero are allowed, and the informer's cache ends holding every acknowledged ConfigMap.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, KubeConfig, makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import { haCluster } from './ha_cluster.js';
import { startServer } from './harness.js';

const CM = '/api/v1/namespaces/default/configmaps';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** POSTs one ConfigMap, retrying only as client-go would (429, or a 5xx with Retry-After); the error, if any. */
async function create(base: string, name: string): Promise<string | null> {
  for (let attempt = 0; attempt < 10; attempt++) {
    let res: Response;
    try {
      res = await fetch(`${base}${CM}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (err) {
      return `${name}: ${String((err as Error).cause ?? err)}`;
    }
    const body = await res.text();
    if (res.status === 201) return null;
    const retryAfter = res.headers.get('retry-after');
    if (res.status !== 429 && !(res.status >= 500 && retryAfter !== null)) return `${name}: ${res.status} ${body}`;
    await sleep(Math.min(1_000, Number(retryAfter ?? 1) * 1_000));
  }
  return `${name}: still refused after 10 attempts`;
}

test('a rolling restart of three API servers behind HAProxy shows clients no error', async () => {
  const ha = await haCluster(3, ['--shutdown-delay-duration', '3s']);
  try {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'lb', server: ha.base, skipTLSVerify: true }],
      users: [{ name: 'admin' }],
      contexts: [{ name: 'lb', cluster: 'lb', user: 'admin', namespace: 'default' }],
      currentContext: 'lb',
    });
    const core = kc.makeApiClient(CoreV1Api);
    let lists = 0;
    const informer = makeInformer<V1ConfigMap>(kc, CM, () => {
      lists++;
      return core.listNamespacedConfigMap({ namespace: 'default' });
    });
    const cache = new Set<string>();
    const informerErrors: string[] = [];
    informer.on('add', (c) => cache.add(c.metadata!.name!));
    informer.on('error', (e) => informerErrors.push(String(e)));
    await informer.start();

    const acked: string[] = [];
    const writeErrors: string[] = [];
    let stop = false;
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; !stop; i++) {
        const err = await create(ha.base, `w${w}-${i}`);
        if (err === null) acked.push(`w${w}-${i}`);
        else writeErrors.push(err);
      }
    };
    const writers = Array.from({ length: 4 }, (_, w) => writer(w));
    await sleep(1_500);

    for (let i = 0; i < ha.servers.length; i++) {
      const old = ha.servers[i]!;
      const t0 = performance.now();
      const exited = new Promise((r) => old.process.once('exit', r));
      old.process.kill('SIGTERM');
      await exited;
      const took = performance.now() - t0;
      await old.stop();
      assert.ok(
        took >= 3_000,
        `server ${i} served on through its shutdown delay (exited after ${Math.round(took)} ms)`,
      );
      ha.servers[i] = await startServer(ha.serverArgs[i]!);
      // HAProxy puts it back after two good checks; wait for that before the next server goes.
      await sleep(3_000);
    }
    await sleep(1_000);
    stop = true;
    await Promise.all(writers);
    for (let i = 0; i < 100 && acked.some((n) => !cache.has(n)); i++) await sleep(100);
    // Stopping the informer aborts its watch, which it reports as an error: count only those before.
    const errorsUnderLoad = [...informerErrors];
    await informer.stop();
    process.stdout.write(
      `# ${acked.length} writes acknowledged over the rolling restart; the informer listed ${lists} times\n`,
    );
    assert.deepEqual(writeErrors, [], 'no write failed');
    assert.deepEqual(errorsUnderLoad, [], 'the informer reported no error');
    assert.ok(acked.length > 100, `writes went on (${acked.length})`);
    assert.deepEqual(
      acked.filter((n) => !cache.has(n)),
      [],
      "every acknowledged ConfigMap reached the informer's cache",
    );
  } finally {
    await ha.stop();
  }
});
