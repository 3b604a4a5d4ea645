/**
 * What the API server keeps per object: a real `kscale server` (embedded
 * SQLite, watch cache on) under --inspect and --trace-gc gets N pods created,
 * N status writes, N Events and N pod deletes over loopback HTTP; after each
 * step a full GC through the inspector, then heap + external bytes. The growth
 * per object is what the server holds (cache entries, the event window's
 * history, pinned buffers), not garbage. The step's writes all stay in the
 * window (the run is shorter than its 75 s), so the per-write figures include
 * the window's cost, as a busy server pays it. Also the longest unforced
 * mark-compact pause.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/servermem/main.js [--quick] [--pods N]
 *     [--kscale PATH/kscale.js (another build, e.g. main's, as the reference)] [-- server flags...]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { inspectorUrl, liveMemory, type LiveMemory } from '../watchcache/inspector.js';
import { namespaceOf, NAMESPACES, pod, runningStatus, scheduledEvent } from './objects.js';
import { flagValue } from '../args.js';

const argv = process.argv.slice(2);
const value = (f: string): string | undefined => flagValue(argv, f);
const quick = argv.includes('--quick');
const n = Number(value('--pods') ?? (quick ? 300 : 20_000));
const kscale = value('--kscale') ?? fileURLToPath(new URL('../../src/cmd/kscale.js', import.meta.url));
const dash = argv.indexOf('--');
const serverFlags = dash < 0 ? [] : argv.slice(dash + 1);
if (!Number.isInteger(n) || n <= 0) throw new Error(`--pods must be a positive integer`);

const dir = mkdtempSync(join(tmpdir(), 'kscale-servermem-'));
const args = [
  '--inspect=127.0.0.1:0',
  '--trace-gc',
  kscale,
  'server',
  // The plain lab port, as before secure serving was the default; the secure port on a free port, not 6443.
  '--insecure-port',
  '0',
  '--secure-port',
  '0',
  '--data-dir',
  join(dir, 'data'),
  '--storage-sync',
  'normal',
  ...serverFlags,
];
const server = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
let stderr = '';
server.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
const pauses: number[] = [];
const url = await new Promise<string>((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`server did not start in 60 s: ${stderr}`)), 60_000);
  server.once('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  createInterface({ input: server.stdout }).on('line', (l) => {
    // --trace-gc: "Mark-Compact 38.1 (52.0) -> 30.2 (50.1) MB, 12.3 / 0.0 ms ... reason"; forced ones (the inspector's) are left out.
    const g = /Mark-Compact[^,]*, ([\d.]+) \/ [\d.]+ ms/.exec(l);
    if (g !== null && !/heap profiler|testing/.test(l)) pauses.push(Number(g[1]));
    const m = /listening on (http:\/\/\S+)/.exec(l);
    if (m !== null) {
      clearTimeout(timer);
      resolve(m[1]!);
    }
  });
});
const ws = inspectorUrl(stderr);
if (ws === undefined) throw new Error(`no inspector URL in the server's stderr: ${stderr}`);

async function call(method: string, path: string, body: unknown, type = 'application/json'): Promise<void> {
  const r = await fetch(url + path, { method, headers: { 'content-type': type }, body: JSON.stringify(body) });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text.slice(0, 300)}`);
}
/** Runs f(0..count-1) with `conc` requests in flight. */
async function pool(count: number, f: (i: number) => Promise<void>, conc = 24): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: conc }, async () => {
      while (next < count) await f(next++);
    }),
  );
}

const started = performance.now();
try {
  await pool(NAMESPACES, (i) => call('POST', '/api/v1/namespaces', { metadata: { name: namespaceOf(i) } }));
  const steps: [string, () => Promise<void>][] = [
    ['pod created', () => pool(n, (i) => call('POST', `/api/v1/namespaces/${namespaceOf(i)}/pods`, pod(i)))],
    [
      'pod status written',
      () =>
        pool(n, (i) =>
          call(
            'PATCH',
            `/api/v1/namespaces/${namespaceOf(i)}/pods/p${i}/status`,
            runningStatus(i),
            'application/merge-patch+json',
          ),
        ),
    ],
    [
      'event created',
      () => pool(n, (i) => call('POST', `/api/v1/namespaces/${namespaceOf(i)}/events`, scheduledEvent(i))),
    ],
    ['pod deleted', () => pool(n, (i) => call('DELETE', `/api/v1/namespaces/${namespaceOf(i)}/pods/p${i}`, {}))],
  ];
  const kept = (m: LiveMemory): number => m.heapUsed + m.external;
  let before = await liveMemory(ws);
  console.log(
    `kscale server memory benchmark${quick ? ' (--quick: figures are not meaningful)' : ''}: ${n} objects per step, server ${kscale} ${serverFlags.join(' ')}`,
  );
  console.log(
    `machine: ${cpus().length} cores, load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log('step                 KiB/object  heap MiB  external MiB  rss MiB');
  for (const [label, run] of steps) {
    await run();
    const after = await liveMemory(ws);
    const per = (kept(after) - kept(before)) / n / 1024;
    const mib = (b: number): string => (b / 2 ** 20).toFixed(0).padStart(8);
    console.log(
      `${label.padEnd(20)} ${per.toFixed(2).padStart(10)}  ${mib(after.heapUsed)}  ${mib(after.external).padStart(12)}  ${mib(after.rss).padStart(7)}`,
    );
    before = after;
  }
  pauses.sort((a, b) => a - b);
  console.log(
    `unforced mark-compact GCs: ${pauses.length}, longest ${(pauses.at(-1) ?? 0).toFixed(0)} ms, total ${pauses.reduce((a, b) => a + b, 0).toFixed(0)} ms`,
  );
  console.log(
    `wall ${((performance.now() - started) / 1000).toFixed(0)} s, load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
}
