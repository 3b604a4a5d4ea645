/**
 * The API server benchmark: a real `kscale server` process (embedded SQLite
 * store) against bare Node `http` serving the same Pod from memory, side by
 * side in one run. Measures the maximum GET, create and update rates (closed
 * loop), then p50/p99 latency at half of each (open loop). Prints a table; it
 * is a script, not a timed test.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/apiserver/main.js [--quick]
 *     [--storage-sync full|normal] [--connections N] [--only get,create,update]
 *     [--cpu-prof-dir DIR] [--runs N]
 *
 * --runs N repeats the whole run N times (fresh servers and generator each
 * time) and judges the median of each figure; the targets are ratios against
 * the bare-HTTP reference of the same run (issue 29).
 *
 * The load generator, the kscale server and the reference server are three
 * separate processes; this one only orchestrates. --cpu-prof-dir runs the
 * kscale server under `node --cpu-prof` and keeps its .cpuprofile in DIR
 * (summarize it with dist/bench/apiserver/profile_summary.js). Progress goes to
 * stderr, the report to stdout; processes and temp dirs are removed on exit,
 * on error and on SIGINT/SIGTERM.
 */
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Job, JobResult, Op, UpdateObject } from './load.js';
import { nodeRuntimeFlags } from '../../src/lab/node_flags.js';
import { NAMESPACE, podManifest } from './pod.js';
import {
  Cleanup,
  LoadGenerator,
  runBenchmark,
  processCpuMs,
  startBare,
  startKscale,
  tempDir,
  type ServerProcess,
} from './processes.js';
import { buildRows, formatTable, medianResults, warnings, type Phase, type Results } from './report.js';

/** Sizes and bounds of one run. */
interface Config {
  quick: boolean;
  connections: number;
  warmupMs: number;
  /** Closed-loop measuring time per phase. */
  closedMs: number;
  /** Open-loop arrival window per phase. */
  openMs: number;
  maxReads: number;
  maxWrites: number;
  storageSync: 'full' | 'normal';
  only: Set<Op>;
  cpuProfDir: string | undefined;
  /** Whole runs; the table gives each figure's median. */
  runs: number;
}

const started = performance.now();
const progress = (msg: string): void => {
  process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s] ${msg}\n`);
};

function parseArgs(argv: string[]): Config {
  const value = (flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const quick = argv.includes('--quick');
  const sync = value('--storage-sync') ?? 'full';
  if (sync !== 'full' && sync !== 'normal') throw new Error(`--storage-sync must be full or normal, not ${sync}`);
  const only = new Set((value('--only') ?? 'get,create,update').split(',') as Op[]);
  const profDir = value('--cpu-prof-dir');
  const runs = Number(value('--runs') ?? 1);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a whole number ≥ 1, not ${value('--runs')}`);
  return {
    runs,
    quick,
    connections: Number(value('--connections') ?? 64),
    warmupMs: quick ? 300 : 2_000,
    closedMs: quick ? 1_500 : 10_000,
    openMs: quick ? 1_500 : 10_000,
    maxReads: 2_000_000,
    maxWrites: 300_000,
    storageSync: sync,
    only,
    cpuProfDir: profDir === undefined ? undefined : resolve(profDir),
  };
}

function header(cfg: Config): string[] {
  const cpu = cpus();
  return [
    `kscale API server benchmark${cfg.quick ? ' (--quick: short phases, figures are not meaningful)' : ''}`,
    `date:     ${new Date().toISOString()}`,
    `machine:  ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown cpu'}, ${(totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, ${platform()} ${release()}`,
    `node:     ${process.version}; load average before the run ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} (other work on the machine skews the figures)`,
    `server:   node ${nodeRuntimeFlags('server').join(' ')} kscale server --storage-sync ${cfg.storageSync} (${cfg.storageSync === 'full' ? 'default: fsync before acknowledging' : 'acknowledges before fsync'}), embedded SQLite store in a temp dir, 127.0.0.1${cfg.cpuProfDir === undefined ? '' : `, under --cpu-prof (slower)`}`,
    `load:     one generator process, raw keep-alive HTTP/1.1, ${cfg.connections} connections; closed loop ${cfg.closedMs / 1000} s after ${cfg.warmupMs / 1000} s warm-up;`,
    `          open loop ${cfg.openMs / 1000} s at 50% of each closed-loop rate, latency from the scheduled send time (sorted array percentiles)`,
    `pod:      ${JSON.stringify(podManifest('bench-c-0000000-000000')).length} B request body; GET answers the stored object`,
    `runs:     ${cfg.runs === 1 ? 'one whole run' : `${cfg.runs} whole runs (fresh processes each); the table gives each figure's median`}; targets are ratios to the bare-HTTP reference of the same run`,
  ];
}

/** JSON request from the orchestrator (set-up only, never measured). */
async function call(s: ServerProcess, method: string, path: string, body?: unknown): Promise<string> {
  const res = await fetch(`http://${s.host}:${s.port}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status}: ${text.slice(0, 500)}`);
  return text;
}

/** The update template of a stored object: its JSON with __RV__ and __SEQ__ placeholders. */
function updateTemplate(stored: string): string {
  const obj = JSON.parse(stored) as { metadata: { resourceVersion?: string; annotations?: Record<string, string> } };
  obj.metadata.resourceVersion = '__RV__';
  obj.metadata.annotations = { ...obj.metadata.annotations, 'bench.kscale.io/seq': '__SEQ__' };
  return JSON.stringify(obj);
}

/** One whole run: fresh kscale and bare servers and generator; every phase's figures. */
async function measure(cfg: Config, cleanup: Cleanup): Promise<Results> {
  const dir = tempDir(cleanup, 'apiserver');
  progress('starting kscale server');
  const nodeArgs = cfg.cpuProfDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', cfg.cpuProfDir];
  const kscale = await startKscale(cleanup, join(dir, 'data'), ['--storage-sync', cfg.storageSync], nodeArgs);

  progress('creating the benchmark objects');
  const podsPath = `/api/v1/namespaces/${NAMESPACE}/pods`;
  await call(kscale, 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: NAMESPACE },
  });
  await call(kscale, 'POST', podsPath, podManifest('bench-get'));
  const getBody = await call(kscale, 'GET', `${podsPath}/bench-get`);
  const updates: UpdateObject[] = [];
  const bareUpdates: UpdateObject[] = [];
  for (let i = 0; i < cfg.connections; i++) {
    const stored = await call(kscale, 'POST', podsPath, podManifest(`bench-u-${i}`));
    const obj = JSON.parse(stored) as { metadata: { resourceVersion: string } };
    updates.push({
      path: `${podsPath}/bench-u-${i}`,
      template: updateTemplate(stored),
      rv: obj.metadata.resourceVersion,
    });
    bareUpdates.push({ path: `${podsPath}/bench-u-${i}`, template: updateTemplate(stored), rv: '1' });
  }

  progress('starting the bare-HTTP reference and the load generator');
  const bare = await startBare(cleanup, getBody);
  const gen = new LoadGenerator(cleanup);
  const createTemplate = JSON.stringify(podManifest('__NAME__'));
  let phaseNo = 0;

  const phase = async (
    name: string,
    s: ServerProcess,
    op: Op,
    mode: 'closed' | 'open',
    ms: number,
    rate?: number,
  ): Promise<Phase> => {
    const isBare = s === bare;
    const objs = isBare ? bareUpdates : updates;
    const job: Job = {
      host: s.host,
      port: s.port,
      op,
      mode,
      connections: cfg.connections,
      maxCount: op === 'get' ? cfg.maxReads : cfg.maxWrites,
      maxMs: ms,
      ...(rate === undefined ? {} : { rate }),
      getPath: `${podsPath}/bench-get`,
      createPath: podsPath,
      createTemplate,
      namePrefix: `bench-c-${process.pid}-${++phaseNo}`,
      updates: objs,
    };
    progress(`${name}${rate === undefined ? '' : ` at ${Math.round(rate)}/s`} (${ms / 1000} s)`);
    const cpu0 = processCpuMs(s.pid);
    const gen0 = processCpuMs(gen.pid);
    const t0 = performance.now();
    const r: JobResult = await gen.run(job).catch((err: unknown) => {
      throw new Error(`${name}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    });
    const wall = performance.now() - t0;
    const cpu1 = processCpuMs(s.pid);
    const gen1 = processCpuMs(gen.pid);
    r.rvs.forEach((rv, i) => (objs[i]!.rv = rv));
    const out: Phase = { ...r };
    if (cpu0 !== undefined && cpu1 !== undefined) out.serverCpuPercent = ((cpu1 - cpu0) / wall) * 100;
    // The whole generator process as the kernel counts it (the in-process figure covers the loop only).
    if (gen0 !== undefined && gen1 !== undefined) out.cpuPercent = ((gen1 - gen0) / wall) * 100;
    progress(
      `  ${Math.round(r.perSec)}/s, ${r.errors} errors${r.latency === undefined ? '' : `, p50 ${r.latency.p50.toFixed(2)} ms, p99 ${r.latency.p99.toFixed(2)} ms`}`,
    );
    return out;
  };
  const closed = async (name: string, s: ServerProcess, op: Op): Promise<Phase> => {
    await phase(`${name} warm-up`, s, op, 'closed', cfg.warmupMs);
    return phase(name, s, op, 'closed', cfg.closedMs);
  };
  const half = (name: string, s: ServerProcess, op: Op, max: Phase | undefined): Promise<Phase> | undefined =>
    max === undefined || max.perSec <= 0
      ? undefined
      : phase(`${name} at 50%`, s, op, 'open', cfg.openMs, max.perSec / 2);

  const want = (op: Op): boolean => cfg.only.has(op);
  const r: Results = { connections: cfg.connections };
  if (want('get')) r.bareGet = await closed('bare GET', bare, 'get');
  if (want('create') || want('update')) r.barePut = await closed('bare PUT', bare, 'update');
  if (want('get')) r.get = await closed('kscale GET', kscale, 'get');
  if (want('create')) r.create = await closed('kscale create', kscale, 'create');
  if (want('update')) r.update = await closed('kscale update', kscale, 'update');
  r.bareGetHalf = await half('bare GET', bare, 'get', r.bareGet);
  r.barePutHalf = await half('bare PUT', bare, 'update', r.barePut);
  r.getHalf = await half('kscale GET', kscale, 'get', r.get);
  r.createHalf = await half('kscale create', kscale, 'create', r.create);
  r.updateHalf = await half('kscale update', kscale, 'update', r.update);
  return r;
}

async function run(cfg: Config): Promise<void> {
  console.log(header(cfg).join('\n'));
  const all: Results[] = [];
  for (let i = 1; i <= cfg.runs; i++) {
    if (cfg.runs > 1) progress(`whole run ${i} of ${cfg.runs}`);
    const cleanup = new Cleanup();
    try {
      all.push(await measure(cfg, cleanup));
    } finally {
      await cleanup.run();
    }
    if (cfg.runs > 1) {
      console.log(`\nrun ${i} of ${cfg.runs}:`);
      console.log(formatTable(buildRows(all[i - 1]!)));
    }
  }
  const r = cfg.runs === 1 ? all[0]! : medianResults(all);

  console.log('');
  if (cfg.runs > 1) console.log(`median of ${cfg.runs} whole runs:`);
  console.log(formatTable(buildRows(r)));
  console.log('');
  console.log('gen / server CPU: load generator and server process CPU over the phase, % of one core (the machine has');
  console.log(
    `${cpus().length} cores, shared by both). Writes are conflict-free: each connection updates its own pod with its current RV.`,
  );
  const ref = (name: string, p: Phase | undefined): string =>
    p === undefined ? '' : ` ${name} ${p.cpuPercent.toFixed(0)}% / ${(p.serverCpuPercent ?? NaN).toFixed(0)}%;`;
  console.log(
    `bare reference gen / server CPU:${ref('GET', r.bareGet)}${ref('PUT', r.barePut)}${ref('GET at 50%', r.bareGetHalf)}${ref('PUT at 50%', r.barePutHalf)}`,
  );
  console.log(
    `load average after the run: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  for (const w of warnings(r)) console.log(w);
  if (cfg.cpuProfDir !== undefined)
    console.log(`server CPU profile: written to ${cfg.cpuProfDir} when the server exits`);
  progress(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

await runBenchmark('API server benchmark', progress, () => run(parseArgs(process.argv.slice(2))));
