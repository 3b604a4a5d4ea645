/**
 * The scheduler benchmark, scheduler_perf's method through the real
 * `kscale server`: nodes are created as API objects, the scheduler runs as
 * its own process (`kscale scheduler`), pods are created while it runs, and
 * throughput is the mean of 1-second samples of pods bound. Each case runs
 * beside the reference, a round-robin binder that does no scheduling at all,
 * whose figure is the API server's own ceiling for create + bind here.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/scheduler/main.js [--quick]
 *     [--nodes 5000] [--pods 10000] [--cases plain,anti-affinity,gang8,reference]
 *     [--qps 5000] [--in-flight 64] [--anti-affinity-pods 1000] [--cpu-prof-dir DIR]
 *
 * Progress goes to stderr, the table to stdout. Every process and temp dir is
 * removed on exit, on error and on Ctrl-C.
 */
import { spawn } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { RESOURCES, RESTClient, loadKubeconfig } from '../../src/client/index.js';
import { Cleanup, kscaleArgv, processCpuMs, runBenchmark, startKscale, tempDir } from '../apiserver/processes.js';
import { rssBytes } from '../kubelet/measure.js';
import { formatTable, type Row } from './report.js';
import { createNodes, createPodGroups, runPods, type PodKind } from './workload.js';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    nodes: { type: 'string' },
    pods: { type: 'string' },
    cases: { type: 'string' },
    qps: { type: 'string', default: '5000' },
    'in-flight': { type: 'string', default: '64' },
    'anti-affinity-pods': { type: 'string' },
    'timeout-s': { type: 'string' },
    'cpu-prof-dir': { type: 'string' },
  },
});

const quick = args.quick === true;
const NODES = (args.nodes ?? (quick ? '100' : '5000')).split(',').map(Number);
const PODS = Number(args.pods ?? (quick ? 400 : 10_000));
const ANTI_PODS = Number(args['anti-affinity-pods'] ?? (quick ? 50 : 1000));
const CASES = (args.cases ?? 'reference,plain,anti-affinity,gang8').split(',');
const QPS = args.qps!;
const IN_FLIGHT = args['in-flight']!;
const TIMEOUT_MS = Number(args['timeout-s'] ?? (quick ? 30 : 300)) * 1000;
const PROF_DIR = args['cpu-prof-dir'] !== undefined ? resolve(args['cpu-prof-dir']) : undefined;
const NS = 'bench';
const t0 = performance.now();
const progress = (msg: string): void =>
  void process.stderr.write(`[${((performance.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${msg}\n`);

/** Starts the scheduler or the reference binder; resolves with its pid once it schedules. */
async function startScheduling(cleanup: Cleanup, kubeconfig: string, reference: boolean): Promise<number> {
  const nodeArgs = PROF_DIR !== undefined && !reference ? ['--cpu-prof', '--cpu-prof-dir', PROF_DIR] : [];
  const argv = reference
    ? [fileURLToPath(new URL('./rr_binder.js', import.meta.url)), kubeconfig, IN_FLIGHT]
    : kscaleArgv('component', nodeArgs, [
        'scheduler',
        '--kubeconfig',
        kubeconfig,
        '--kube-api-qps',
        QPS,
        '--kube-api-burst',
        QPS,
        '--leader-elect=false',
        '--port',
        '0',
        '--max-in-flight-bindings',
        IN_FLIGHT,
      ]);
  const p = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  p.stderr!.on('data', (d: Buffer) => void (err.length < 65536 && (err += d.toString())));
  cleanup.add(
    async () => {
      if (p.exitCode !== null || p.signalCode !== null) return;
      const exited = new Promise((r) => p.once('exit', r));
      p.kill('SIGTERM');
      const t = setTimeout(() => p.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(t);
    },
    () => void p.kill('SIGKILL'),
  );
  await new Promise<void>((res, rej) => {
    const t = setTimeout(() => rej(new Error(`scheduler did not start: ${err}`)), 60_000);
    createInterface({ input: p.stdout! }).on('line', (l) => {
      if (/started/.test(l)) {
        clearTimeout(t);
        res();
      }
    });
    p.once('exit', (c) => rej(new Error(`scheduler exited ${c}: ${err}`)));
  });
  return p.pid!;
}

async function runCase(nodes: number, kase: string): Promise<Row> {
  const cleanup = new Cleanup();
  try {
    const dir = tempDir(cleanup, 'sched');
    const kubeconfig = join(dir, 'kubeconfig');
    const server = await startKscale(cleanup, join(dir, 'data'), ['--write-kubeconfig', kubeconfig], []);
    const rest = new RESTClient({ ...loadKubeconfig({ path: kubeconfig }), qps: 0 });
    cleanup.add(() => rest.close());
    const reference = kase === 'reference';
    const kind: PodKind = reference ? 'plain' : (kase as PodKind);
    const pods = kind === 'anti-affinity' ? Math.min(ANTI_PODS, nodes) : PODS;
    progress(`${kase}: ${nodes} nodes`);
    await createNodes(rest, nodes);
    await rest.resource(RESOURCES.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    if (kind === 'gang8') await createPodGroups(rest, pods, NS);
    const pid = await startScheduling(cleanup, kubeconfig, reference);
    const cpu0 = { s: processCpuMs(pid) ?? 0, a: processCpuMs(server.pid) ?? 0, b: process.cpuUsage() };
    const load0 = loadavg()[0];
    progress(`${kase}: creating ${pods} pods`);
    const r = await runPods(rest, kind, pods, NS, TIMEOUT_MS);
    const schedCpu = (processCpuMs(pid) ?? 0) - cpu0.s;
    const serverCpu = (processCpuMs(server.pid) ?? 0) - cpu0.a;
    const bu = process.cpuUsage(cpu0.b);
    const row: Row = {
      kase,
      nodes,
      pods,
      bound: r.bound,
      throughput: r.throughput,
      p50: r.latencyP50Ms,
      p99: r.latencyP99Ms,
      schedCpuPerPod: schedCpu / Math.max(1, r.bound),
      serverCpuPerPod: serverCpu / Math.max(1, r.bound),
      benchCpuPerPod: (bu.user + bu.system) / 1000 / Math.max(1, r.bound),
      schedRssMB: rssBytes(pid) / 2 ** 20,
      serverRssMB: rssBytes(server.pid) / 2 ** 20,
      wallS: r.wallMs / 1000,
      load: `${load0.toFixed(2)}→${loadavg()[0].toFixed(2)}`,
    };
    progress(`${kase}: ${r.bound}/${pods} bound, ${r.throughput.toFixed(0)} pods/s`);
    return row;
  } finally {
    await cleanup.run();
  }
}

await runBenchmark('scheduler benchmark', progress, async () => {
  const rows: Row[] = [];
  for (const n of NODES) for (const c of CASES) rows.push(await runCase(n, c));
  process.stdout.write(
    `scheduler benchmark (${quick ? 'quick, figures mean nothing' : 'full'}): ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}\n`,
  );
  process.stdout.write(
    `client QPS/burst ${QPS}/${QPS}, ${IN_FLIGHT} bindings in flight, ${PODS} pods per case (anti-affinity: ${ANTI_PODS} or the node count)\n\n`,
  );
  process.stdout.write(formatTable(rows));
});
