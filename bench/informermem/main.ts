/**
 * Memory per cached pod in the scheduler and the controller-manager: a real
 * `kscale server` (embedded SQLite) gets M nodes; the real `kscale scheduler`
 * and `kscale controller-manager` processes start against it, each under its
 * own identity (--write-component-kubeconfigs) and with the inspector on; then
 * N lab-shaped pods are created bound over the nodes and patched Running.
 * Once both components are idle, a full GC through the inspector and
 * process.memoryUsage(): (after - before) / N is what each keeps per pod.
 * With --snapshot (the default) each component also writes a heap snapshot
 * before and after, and the classes that grew most are printed per pod.
 *
 * The pods' owner is a ConfigMap, not a ReplicaSet: the garbage collector
 * keeps them (their owner exists) and no workload controller adopts or scales
 * them, so the components hold N pods in steady state, as in the lab.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/informermem/main.js [--quick] [--pods 30000] [--nodes 1000]
 *     [--no-snapshot] [--kscale PATH/kscale.js (another build, e.g. main's, as the reference)]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { nodeRuntimeFlags } from '../../src/lab/node_flags.js';
import {
  KSCALE,
  processCpuMs,
  register,
  runBenchmark,
  startKscale,
  tempDir,
  type Cleanup,
} from '../apiserver/processes.js';
import { runningStatus } from '../servermem/objects.js';
import { inspectorUrl, liveMemory, type LiveMemory } from '../watchcache/inspector.js';
import { grownClasses, heapClasses, type HeapClass } from './heap_classes.js';
import { APPS, NAMESPACES, node, owner, pod } from './objects.js';
import { flagValue } from '../args.js';

const argv = process.argv.slice(2);
const value = (f: string): string | undefined => flagValue(argv, f);
const quick = argv.includes('--quick');
const n = Number(value('--pods') ?? (quick ? 2_000 : 30_000));
const nodes = Number(value('--nodes') ?? (quick ? 100 : 1_000));
const snapshots = !argv.includes('--no-snapshot');
const kscale = value('--kscale') ?? KSCALE;
if (!Number.isInteger(n) || n <= 0 || n > 30_000) throw new Error('--pods must be an integer in 1..30000');
if (!Number.isInteger(nodes) || nodes <= 0) throw new Error('--nodes must be a positive integer');

/** A component process under measurement. */
interface Component {
  name: string;
  p: ChildProcess;
  ws: string;
  snapDir: string;
}

async function startComponent(cleanup: Cleanup, dir: string, name: string, args: string[]): Promise<Component> {
  const snapDir = join(dir, `snap-${name}`);
  mkdirSync(snapDir);
  const p = spawn(
    process.execPath,
    [
      ...nodeRuntimeFlags('component'),
      '--inspect=127.0.0.1:0',
      '--heapsnapshot-signal=SIGUSR2',
      `--diagnostic-dir=${snapDir}`,
      kscale,
      name,
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  register(cleanup, p, 10_000);
  let err = '';
  p.stderr!.on('data', (d: Buffer) => {
    if (err.length < 64 * 1024) err += d.toString();
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start in 60 s: ${err}`)), 60_000);
    p.once('exit', (code) => reject(new Error(`${name} exited with ${code}: ${err}`)));
    createInterface({ input: p.stdout! }).on('line', (l) => {
      if (/ started/.test(l)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  const ws = inspectorUrl(err);
  if (ws === undefined) throw new Error(`no inspector URL in ${name}'s stderr: ${err}`);
  return { name, p, ws, snapDir };
}

/** Waits until every process used under 5% of a core over two 1 s windows in a row (at most limitMs). */
async function idle(pids: number[], limitMs = 300_000): Promise<void> {
  const end = performance.now() + limitMs;
  let quiet = 0;
  let last = pids.map((p) => processCpuMs(p) ?? 0);
  while (quiet < 2 && performance.now() < end) {
    await sleep(1000);
    const now = pids.map((p) => processCpuMs(p) ?? 0);
    quiet = now.every((c, i) => c - last[i]! < 50) ? quiet + 1 : 0;
    last = now;
  }
}

/** Has the component write a heap snapshot and returns its class counts. */
async function snapshot(c: Component): Promise<Map<string, HeapClass>> {
  const before = new Set(readdirSync(c.snapDir));
  c.p.kill('SIGUSR2');
  let file: string | undefined;
  for (let i = 0; i < 600 && file === undefined; i++) {
    await sleep(100);
    file = readdirSync(c.snapDir).find((f) => !before.has(f) && f.endsWith('.heapsnapshot'));
  }
  if (file === undefined) throw new Error(`${c.name} wrote no heap snapshot`);
  // The snapshot is written synchronously on the main thread: the inspector answers once it is complete.
  await liveMemory(c.ws, 600_000);
  const path = join(c.snapDir, file);
  if (statSync(path).size === 0) throw new Error(`${c.name}: empty heap snapshot`);
  return heapClasses(path);
}

const mib = (b: number): string => (b / 2 ** 20).toFixed(0);
const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

await runBenchmark(
  'informermem',
  (m) => console.error(m),
  async (cleanup) => {
    const started = performance.now();
    const dir = tempDir(cleanup, 'informermem');
    const components = join(dir, 'components');
    const server = await startKscale(
      cleanup,
      join(dir, 'data'),
      ['--storage-sync', 'normal', '--write-component-kubeconfigs', components],
      [],
    );
    const base = `http://${server.host}:${server.port}`;
    const call = async (method: string, path: string, body: unknown, type = 'application/json'): Promise<unknown> => {
      const r = await fetch(base + path, { method, headers: { 'content-type': type }, body: JSON.stringify(body) });
      const text = await r.text();
      if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text.slice(0, 300)}`);
      return JSON.parse(text) as unknown;
    };
    const pool = async (count: number, f: (i: number) => Promise<unknown>, conc = 24): Promise<void> => {
      let next = 0;
      await Promise.all(
        Array.from({ length: conc }, async () => {
          while (next < count) await f(next++);
        }),
      );
    };
    await pool(NAMESPACES, (i) => call('POST', '/api/v1/namespaces', { metadata: { name: `ns${i}` } }));
    const owners = new Map<number, string>();
    await pool(APPS, async (k) => {
      const cm = (await call('POST', `/api/v1/namespaces/ns${k % NAMESPACES}/configmaps`, owner(k))) as {
        metadata: { uid: string };
      };
      owners.set(k, cm.metadata.uid);
    });
    await pool(nodes, (j) => call('POST', '/api/v1/nodes', node(j)));
    const cfg = (c: string): string => join(components, `${c}.conf`);
    const measured = [
      await startComponent(cleanup, dir, 'scheduler', [
        '--kubeconfig',
        cfg('scheduler'),
        '--port',
        '0',
        '--leader-elect=false',
      ]),
      await startComponent(cleanup, dir, 'controller-manager', [
        '--kubeconfig',
        cfg('controller-manager'),
        '--secure-port',
        '0',
      ]),
    ];
    const pids = measured.map((c) => c.p.pid!);
    await idle(pids);
    const before = new Map<string, LiveMemory>();
    const classesBefore = new Map<string, Map<string, HeapClass>>();
    for (const c of measured) {
      before.set(c.name, await liveMemory(c.ws));
      if (snapshots) classesBefore.set(c.name, await snapshot(c));
    }
    const loadStart = performance.now();
    await pool(n, (i) =>
      call('POST', `/api/v1/namespaces/ns${i % NAMESPACES}/pods`, pod(i, nodes, owners.get(i % APPS)!)),
    );
    await pool(n, (i) =>
      call(
        'PATCH',
        `/api/v1/namespaces/ns${i % NAMESPACES}/pods/p${i}/status`,
        runningStatus(i),
        'application/merge-patch+json',
      ),
    );
    const loadSeconds = (performance.now() - loadStart) / 1000;
    await idle(pids);
    const kept = (await call('GET', '/api/v1/pods?resourceVersion=0', undefined).catch(() => undefined)) as
      { items: unknown[] } | undefined;
    console.log(
      `kscale informer memory benchmark${quick ? ' (--quick: figures are not meaningful)' : ''}: ${n} pods bound over ${nodes} nodes, components ${kscale}`,
    );
    console.log(`machine: ${cpus().length} cores, load average ${load()}`);
    console.log(
      `pods created and patched Running in ${loadSeconds.toFixed(0)} s; pods stored at the end: ${kept?.items.length ?? '?'}`,
    );
    console.log('component           heap MiB before  after  KiB/pod   rss MiB before  after  KiB/pod');
    const after = new Map<string, LiveMemory>();
    for (const c of measured) {
      const b = before.get(c.name)!;
      const a = await liveMemory(c.ws);
      after.set(c.name, a);
      const per = (x: number, y: number): string => ((y - x) / n / 1024).toFixed(2).padStart(8);
      // The first snapshot grows the RSS (V8's snapshot buffers): RSS per pod is only shown without snapshots.
      const rssPer = snapshots ? '-'.padStart(8) : per(b.rss, a.rss);
      console.log(
        `${c.name.padEnd(19)} ${mib(b.heapUsed).padStart(15)} ${mib(a.heapUsed).padStart(6)} ${per(b.heapUsed, a.heapUsed)} ${mib(b.rss).padStart(14)} ${mib(a.rss).padStart(6)} ${rssPer}`,
      );
    }
    if (snapshots) {
      for (const c of measured) {
        const grown = grownClasses(classesBefore.get(c.name)!, await snapshot(c), 12);
        console.log(`${c.name}: heap snapshot classes that grew most, per pod`);
        console.log('  class                                       count/pod  bytes/pod');
        for (const g of grown)
          console.log(
            `  ${g.name.slice(0, 42).padEnd(42)} ${(g.count / n).toFixed(2).padStart(10)} ${(g.selfBytes / n).toFixed(0).padStart(10)}`,
          );
      }
    }
    console.log(`wall ${((performance.now() - started) / 1000).toFixed(0)} s, load average ${load()}`);
  },
);
