/**
 * What the watch cache's churn costs in mark-compacts: N cached objects of
 * about S bytes, then W writes that each replace one, as a 2,500-node
 * server's pod and lease writes do. Two shapes of the cached bytes side by
 * side, each in a child process with the API server's runtime flags
 * (src/lab/node_flags.ts):
 * - `string`: kscale's EncodedObject, which keeps the stored bytes as a
 *   one-byte string on V8's heap;
 * - `ArrayBuffer` (the reference, the shape before 2026-12-05): a Buffer of
 *   its own per version, as the cache kept until then.
 * V8 starts a mark-compact whenever ArrayBuffer memory has grown 64 MB since
 * the last one, whatever the heap limit; bytes on the heap count against the
 * old generation's limit instead (twice the live heap under
 * --heap-growing-percent=100). The figures: mark-compacts per GB written,
 * their pause time, and the heap and ArrayBuffer bytes at the end.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/cachegc/main.js [--quick] [--objects 75000] [--bytes 3000]
 *     [--writes 400000]
 */
import { spawnSync } from 'node:child_process';
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { nodeRuntimeFlags } from '../../src/lab/node_flags.js';
import { EncodedObject, jsonCodec } from '../../src/storage/index.js';
import { flagValue } from '../args.js';

const argv = process.argv.slice(2);
const value = (f: string): string | undefined => flagValue(argv, f);
const quick = argv.includes('--quick');
const objects = Number(value('--objects') ?? (quick ? 5_000 : 75_000));
const bytes = Number(value('--bytes') ?? 3_000);
const writes = Number(value('--writes') ?? (quick ? 20_000 : 400_000));
for (const [flag, n] of [
  ['--objects', objects],
  ['--bytes', bytes],
  ['--writes', writes],
] as const)
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${flag} must be a positive integer`);

type Shape = 'string' | 'ArrayBuffer';

/** What one child prints, as one JSON line. */
interface Figures {
  shape: Shape;
  markCompacts: number;
  markCompactPauseMs: number;
  seconds: number;
  writtenMB: number;
  heapUsedMB: number;
  arrayBuffersMB: number;
}

/** The JSON a pod-sized write stores: a fresh string each time, as encodeForStorage makes it. */
function stored(i: number, generation: number): Buffer {
  const pad = 'x'.repeat(Math.max(0, bytes - 160));
  return Buffer.from(
    JSON.stringify({
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: { name: `pod-${i}`, namespace: 'load', uid: `${i}-${generation}` },
      spec: { nodeName: `hollow-node-${i % 2_500}`, pad },
      status: { phase: 'Running', generation },
    }),
  );
}

/** The reference shape: the stored bytes in an ArrayBuffer of their own, per version. */
class BufferEntry {
  readonly value: Buffer;
  constructor(
    readonly key: string,
    value: Buffer,
    readonly revision: number,
  ) {
    this.value = Buffer.allocUnsafeSlow(value.length);
    value.copy(this.value);
  }
}

/** Lets the GC observer deliver what it has buffered (entries arrive on a later turn). */
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 100));

async function child(shape: Shape): Promise<void> {
  let markCompacts = 0;
  let pauseMs = 0;
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries() as (PerformanceEntry & { detail?: { kind?: number } })[])
      if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        markCompacts++;
        pauseMs += e.duration;
      }
  });
  obs.observe({ entryTypes: ['gc'] });
  const make = (i: number, rev: number): EncodedObject | BufferEntry => {
    const key = `/registry/pods/load/pod-${i}`;
    const v = stored(i, rev);
    return shape === 'string' ? new EncodedObject(key, v, rev, jsonCodec) : new BufferEntry(key, v, rev);
  };
  const cache: (EncodedObject | BufferEntry)[] = [];
  for (let i = 0; i < objects; i++) cache.push(make(i, i + 1));
  // Each write's version stays in a window of recent events for a while, as the cache's event window keeps it.
  const window: (EncodedObject | BufferEntry)[] = new Array<EncodedObject | BufferEntry>(10_000);
  let written = 0;
  await settle();
  const before = { mc: markCompacts, pause: pauseMs };
  const t0 = process.hrtime.bigint();
  let rev = objects;
  // A deterministic walk over the objects (a multiplicative step), so both shapes replace the same ones.
  for (let w = 0; w < writes; w++) {
    const i = (w * 7_919) % objects;
    const next = make(i, ++rev);
    window[w % window.length] = cache[i]!;
    cache[i] = next;
    written += shape === 'string' ? (next as EncodedObject).size : (next as BufferEntry).value.length;
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  await settle();
  {
    obs.disconnect();
    const m = process.memoryUsage();
    const f: Figures = {
      shape,
      markCompacts: markCompacts - before.mc,
      markCompactPauseMs: pauseMs - before.pause,
      seconds,
      writtenMB: written / 2 ** 20,
      heapUsedMB: m.heapUsed / 2 ** 20,
      arrayBuffersMB: m.arrayBuffers / 2 ** 20,
    };
    // Keep the cache alive until the figures are taken.
    if (cache.length !== objects || window.length === 0) throw new Error('cache lost');
    process.stdout.write(`${JSON.stringify(f)}\n`);
  }
}

function run(shape: Shape): Figures {
  const self = fileURLToPath(import.meta.url);
  const args = [
    ...nodeRuntimeFlags('server'),
    self,
    '--child',
    shape,
    ...['--objects', String(objects), '--bytes', String(bytes), '--writes', String(writes)],
  ];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 20 * 60_000 });
  if (r.status !== 0) throw new Error(`${shape} child exited ${r.status} ${r.signal ?? ''}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Figures;
}

async function main(): Promise<void> {
  const childShape = value('--child');
  if (childShape !== undefined) return child(childShape as Shape);
  console.log(`cache churn: ${objects} objects of ~${bytes} B, ${writes} writes replacing them`);
  console.log(
    `${'shape of the cached bytes'.padEnd(28)}${'mark-compacts'.padStart(14)}${'per GB'.padStart(8)}` +
      `${'MC pause ms'.padStart(12)}${'s'.padStart(7)}${'heap MB'.padStart(9)}${'ArrayBuffer MB'.padStart(16)}`,
  );
  // The reference first, then kscale's, then the reference again: a drift on a shared machine shows.
  for (const shape of ['ArrayBuffer', 'string', 'ArrayBuffer'] as Shape[]) {
    const f = run(shape);
    const label = shape === 'string' ? 'string (kscale)' : 'ArrayBuffer (reference)';
    console.log(
      `${label.padEnd(28)}${String(f.markCompacts).padStart(14)}` +
        `${(f.markCompacts / (f.writtenMB / 1024)).toFixed(1).padStart(8)}` +
        `${f.markCompactPauseMs.toFixed(0).padStart(12)}${f.seconds.toFixed(1).padStart(7)}` +
        `${f.heapUsedMB.toFixed(0).padStart(9)}${f.arrayBuffersMB.toFixed(0).padStart(16)}`,
    );
  }
  console.log(`machine: ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(2)}`);
}

await main();
