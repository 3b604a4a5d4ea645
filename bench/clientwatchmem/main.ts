/**
 * What an idle watch costs the client's heap: the hollow kubelet's watch of one referenced ConfigMap
 * (watchReference: a Reflector listing by name, then watching, into a one-object store), W of them
 * over C HTTP/2 TLS connections (one RESTClient and Http2Transport each, as hollow nodes have) to a real
 * `kscale server`, against the same W watches opened as bare Node HTTP/2 client streams over C sessions,
 * the floor. Both are measured in this process: heap used after a full GC before and after, per watch. A
 * 2,500-node fleet holds ~127,000 such watches, so every KB here is ~124 MB of the fleet's heap, which
 * every mark-compact walks.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/clientwatchmem/main.js [--quick] [--watches 2000] [--connections 40]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Http2Transport, loadKubeconfig, RESOURCES, RESTClient, type Stopper } from '../../src/client/index.js';
import type { ConfigMap } from '../../src/api/index.js';
import { watchReference, type ReferencedObject } from '../../src/kubelet/pod_references.js';
import { openWatches, startKscaleServer, stop, type Credentials } from '../watchmem/streams.js';
import { positiveIntFlag } from '../args.js';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const watches = positiveIntFlag(argv, '--watches', quick ? 200 : 2_000);
const connections = positiveIntFlag(argv, '--connections', quick ? 4 : 40);
if (watches / connections > 1000) throw new Error('at most 1,000 watches per connection (the server stream limit)');
const NS = 'clientwatchmem';
const KSCALE = fileURLToPath(new URL('../../src/cmd/kscale.js', import.meta.url));

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap used after full GCs, once timers and sockets settled. */
async function heapUsed(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(100);
  }
  return process.memoryUsage().heapUsed;
}

/** Waits until `done()` holds, for at most 120 s. */
async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** W reference watches through kscale's client over C connections; heap bytes per watch. */
async function kscaleWatches(kubeconfig: string, n: number, c: number): Promise<{ perWatch: number; synced: number }> {
  const config = loadKubeconfig({ path: kubeconfig });
  const before = await heapUsed();
  const clients = Array.from({ length: c }, () => {
    const rest = new RESTClient({ ...config, qps: 0 });
    const transport = new Http2Transport(config);
    rest.useTransport(transport);
    return { rest, transport };
  });
  const held: { stop: Stopper; store: ReferencedObject<ConfigMap> }[] = [];
  for (let i = 0; i < n; i++) {
    const { rest } = clients[i % c]!;
    held.push(watchReference<ConfigMap>(rest, 'configmaps', NS, `cm-${i}`, { name: `cm-${i}` }));
    if (i % 200 === 199) await sleep(50);
  }
  await until(() => held.every((h) => h.store.synced), 'every reference to be listed');
  // The watch requests follow the lists; one more second for them to be answered.
  await sleep(1_000);
  const after = await heapUsed();
  const synced = held.filter((h) => h.store.object !== undefined).length;
  await Promise.all(held.map((h) => h.stop.stop()));
  for (const { transport } of clients) transport.close();
  return { perWatch: (after - before) / n, synced };
}

/** The same watches as bare Node HTTP/2 client streams; heap bytes per watch. */
async function bareWatches(
  url: string,
  tls: Credentials,
  n: number,
  c: number,
): Promise<{ perWatch: number; ok: number }> {
  const before = await heapUsed();
  const { sessions, codes } = await openWatches(url, tls, n, c, NS);
  await sleep(1_000);
  const after = await heapUsed();
  for (const s of sessions) s.destroy();
  return { perWatch: (after - before) / n, ok: codes.get(200) ?? 0 };
}

const dir = mkdtempSync(join(tmpdir(), 'kscale-clientwatchmem-'));
try {
  const { server, kubeconfig: kc, tls } = await startKscaleServer(KSCALE, dir, NS);
  try {
    const config = loadKubeconfig({ path: kc });
    const rest = new RESTClient({ ...config, qps: 0 });
    const cms = rest.resource<ConfigMap>(RESOURCES.configmaps);
    for (let i = 0; i < watches; i += 50)
      await Promise.all(
        Array.from({ length: Math.min(50, watches - i) }, (_, j) =>
          cms.create(
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: `cm-${i + j}`, namespace: NS },
              data: { key: 'v' },
            },
            { namespace: NS },
          ),
        ),
      );
    rest.close();
    // A small round of each first, so code both paths load and compile is not counted per watch.
    await kscaleWatches(kc, 20, 2);
    await bareWatches(server.url, tls, 20, 2);
    const k = await kscaleWatches(kc, watches, connections);
    const b = await bareWatches(server.url, tls, watches, connections);
    const load = loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
    console.log(
      `client watch memory benchmark${quick ? ' (--quick: figures are not meaningful)' : ''}: ${watches} reference watches over ${connections} HTTP/2 connections`,
    );
    console.log(`machine: ${cpus().length} cores, load average ${load}`);
    console.log('client                        heap B/watch  watches');
    console.log(`${'kscale reference watch'.padEnd(29)} ${k.perWatch.toFixed(0).padStart(12)}  ${k.synced} synced`);
    console.log(
      `${'bare Node HTTP/2 (reference)'.padEnd(29)} ${b.perWatch.toFixed(0).padStart(12)}  ${b.ok} answered 200`,
    );
    console.log(`kscale / bare: ${(k.perWatch / b.perWatch).toFixed(2)}`);
  } finally {
    await stop(server);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
