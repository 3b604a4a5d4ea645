/**
 * A/B comparison of two kscale builds under contention: both servers run side
 * by side and one load generator alternates short closed-loop bursts (GET,
 * create, update) between them, so other work on the machine hits both alike.
 * Reports each server's process CPU per answered request (median of the
 * rounds), which other load skews far less than rates, and its event loop's
 * GC time per request (from its /metrics). A script, not a test.
 *
 *   node dist/bench/apiserver/ab.js <repo A> <repo B> [--rounds N] [--burst-ms N]
 *     [--storage-sync full|normal] [--ops get,create,update] [--rate N] [--together] [--quick]
 *
 * Each repo must hold a built dist/ (e.g. `git archive <commit> | tar -x -C /tmp/a`,
 * symlink node_modules, `npx tsc -p tsconfig.json`). The first round is warm-up.
 */
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import type { Op, UpdateObject } from './load.js';
import { NAMESPACE, podManifest } from './pod.js';
import { parsePrometheus, sumOf } from '../../src/lab/prom.js';
import { LoadGenerator, processCpuMs, runBenchmark, tempDir, type Cleanup, type ServerProcess } from './processes.js';

type StartKscale = (
  cleanup: Cleanup,
  dataDir: string,
  extraArgs: string[],
  nodeArgs: string[],
) => Promise<ServerProcess>;

interface Side {
  name: string;
  server: ServerProcess;
  updates: UpdateObject[];
  samples: Record<Op, { cpuUs: number; gcUs: number; perSec: number; errors: number }[]>;
}

const OPS: Op[] = ['get', 'create', 'update'];
const CONNECTIONS = 32;
const PODS = `/api/v1/namespaces/${NAMESPACE}/pods`;

async function call(s: ServerProcess, method: string, path: string, body?: unknown): Promise<string> {
  const res = await fetch(`http://${s.host}:${s.port}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status}: ${text.slice(0, 300)}`);
  return text;
}

/** Starts build `repo`'s server (its own bench module knows its own kscale entry point) with pods to update. */
async function startSide(
  cleanup: Cleanup,
  name: string,
  repo: string,
  sync: string,
  extraArgs: string[],
): Promise<Side> {
  const mod = (await import(join(resolve(repo), 'dist/bench/apiserver/processes.js'))) as { startKscale: StartKscale };
  const server = await mod.startKscale(
    cleanup,
    join(tempDir(cleanup, `ab-${name}`), 'data'),
    ['--storage-sync', sync, ...extraArgs],
    [],
  );
  await call(server, 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: NAMESPACE },
  });
  const updates: UpdateObject[] = [];
  for (let i = 0; i < CONNECTIONS; i++) {
    const obj = JSON.parse(await call(server, 'POST', PODS, podManifest(`ab-u-${i}`))) as {
      metadata: { resourceVersion: string; annotations?: Record<string, string> };
    };
    const rv = obj.metadata.resourceVersion;
    obj.metadata.resourceVersion = '__RV__';
    obj.metadata.annotations = { ...obj.metadata.annotations, 'bench.kscale.io/seq': '__SEQ__' };
    updates.push({ path: `${PODS}/ab-u-${i}`, template: JSON.stringify(obj), rv });
  }
  return { name, server, updates, samples: { get: [], create: [], update: [] } };
}

/** The server's main-thread GC time so far (prom-client's nodejs_gc_duration_seconds), in µs. */
async function gcMicros(s: ServerProcess): Promise<number> {
  return sumOf(parsePrometheus(await call(s, 'GET', '/metrics')), 'nodejs_gc_duration_seconds_sum') * 1e6;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function run(argv: string[], cleanup: Cleanup): Promise<void> {
  const value = (flag: string): string | undefined => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
  const withValue = new Set(['--rounds', '--burst-ms', '--storage-sync', '--ops', '--rate', '--a-args', '--b-args']);
  const [a, b] = argv.filter((x, i) => !x.startsWith('--') && (i === 0 || !withValue.has(argv[i - 1]!)));
  if (a === undefined || b === undefined)
    throw new Error(
      'usage: ab.js <repo A> <repo B> [--rounds N] [--burst-ms N] [--storage-sync full|normal] [--ops get,create,update] [--rate N] [--together] [--quick] [--a-args "server flags"] [--b-args "server flags"]',
    );
  const quick = argv.includes('--quick');
  const rounds = Number(value('--rounds') ?? (quick ? 1 : 5));
  const burstMs = Number(value('--burst-ms') ?? (quick ? 300 : 3_000));
  const sync = value('--storage-sync') ?? 'full';
  const ops = (value('--ops') ?? OPS.join(',')).split(',') as Op[];
  if (ops.some((op) => !OPS.includes(op))) throw new Error(`--ops takes a subset of ${OPS.join(',')}`);
  // An open loop at a fixed rate gives both sides the same batching, so CPU/op compares like with like.
  const rate = value('--rate') === undefined ? undefined : Number(value('--rate'));
  const load0 = loadavg();
  // Extra server flags per side, to take one feature out of a build (say --enable-priority-and-fairness false).
  const args = (flag: string): string[] => (value(flag) ?? '').split(' ').filter((x) => x !== '');
  const sides = [
    await startSide(cleanup, 'a', a, sync, args('--a-args')),
    await startSide(cleanup, 'b', b, sync, args('--b-args')),
  ];
  // --together loads both sides at once from two generators, so outside load hits both in the same moments.
  const together = argv.includes('--together');
  const gens = [new LoadGenerator(cleanup), ...(together ? [new LoadGenerator(cleanup)] : [])];
  let seq = 0;
  const burst = async (s: Side, op: Op, gen: LoadGenerator, measured: boolean): Promise<void> => {
    // Read outside the CPU window: rendering /metrics costs the server CPU too.
    const gc0 = measured ? await gcMicros(s.server) : 0;
    const cpu0 = processCpuMs(s.server.pid);
    const res = await gen.run({
      host: s.server.host,
      port: s.server.port,
      op,
      mode: rate === undefined ? 'closed' : 'open',
      ...(rate === undefined ? {} : { rate }),
      connections: CONNECTIONS,
      maxCount: 1_000_000,
      maxMs: burstMs,
      getPath: `${PODS}/ab-u-0`,
      createPath: PODS,
      createTemplate: JSON.stringify(podManifest('__NAME__')),
      namePrefix: `ab-${s.name}-${++seq}`,
      updates: s.updates,
    });
    const cpu1 = processCpuMs(s.server.pid);
    const gc1 = measured ? await gcMicros(s.server) : 0;
    res.rvs.forEach((rv, i) => (s.updates[i]!.rv = rv));
    const count = (res.perSec * burstMs) / 1000;
    if (measured && cpu0 !== undefined && cpu1 !== undefined && count > 0)
      s.samples[op].push({
        cpuUs: ((cpu1 - cpu0) * 1000) / count,
        gcUs: (gc1 - gc0) / count,
        perSec: res.perSec,
        errors: res.errors,
      });
  };
  for (let r = 0; r <= rounds; r++) {
    for (const op of ops) {
      if (together) {
        await Promise.all(sides.map((s, i) => burst(s, op, gens[i]!, r > 0)));
        continue;
      }
      // Alternate which side goes first, so a burst of outside load does not always land on one.
      for (const s of r % 2 === 0 ? sides : [...sides].reverse()) await burst(s, op, gens[0]!, r > 0);
    }
  }
  console.log(
    `kscale A/B: A=${a}${value('--a-args') ? ` (${value('--a-args')})` : ''} B=${b}${value('--b-args') ? ` (${value('--b-args')})` : ''}; --storage-sync ${sync}; ${rounds} rounds of ${burstMs} ms bursts per op and side, ${CONNECTIONS} connections, ${rate === undefined ? 'closed loop' : `open loop at ${rate}/s`}${together ? ', both sides at once' : ''}`,
  );
  console.log(
    `load average before ${load0.map((x) => x.toFixed(2)).join(' ')}, after ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  for (const op of ops) {
    for (const s of sides) {
      const xs = s.samples[op];
      const errors = xs.reduce((n, x) => n + x.errors, 0);
      console.log(
        `${op.padEnd(6)} ${s.name.toUpperCase()}: server CPU/op median ${median(xs.map((x) => x.cpuUs)).toFixed(0)} µs [${xs.map((x) => x.cpuUs.toFixed(0)).join(' ')}], GC/op median ${median(xs.map((x) => x.gcUs)).toFixed(1)} µs, rate median ${median(xs.map((x) => x.perSec)).toFixed(0)}/s, errors ${errors}`,
      );
    }
  }
}

await runBenchmark(
  'A/B benchmark',
  (msg) => process.stderr.write(`${msg}\n`),
  (cleanup) => run(process.argv.slice(2), cleanup),
);
