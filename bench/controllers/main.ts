/**
 * The workload controllers benchmark: hollow nodes, a `kscale server`, and a
 * `kscale controller-manager` running the ReplicaSet, Deployment,
 * EndpointSlice and Endpoints controllers at a recorded client QPS.
 * 1. Deployments (each with a Service) are created so their pods are asked
 *    for at --rate pods/s; it measures the time until all are available,
 *    the pod creation rate the controllers reach, their CPU, and the API
 *    writes per created pod by resource (Events apart).
 * 2. A Deployment of --roll-replicas pods behind a Service is rolled; the
 *    bytes --watchers Endpoints watchers and as many EndpointSlice watchers
 *    (all namespaces, like kube-proxies) receive are compared in the same run.
 * Pods are placed by `kscale scheduler` when it exists, else by a
 * round-robin binder; the report says which.
 *
 *   node dist/bench/controllers/main.js [--quick] [--nodes 2500] [--deployments 500] [--replicas 30]
 *     [--rate 100] [--roll-replicas 1000] [--watchers 50] [--kube-api-qps 100] [--kube-api-burst 200]
 *     [--scheduler-kube-api-qps 100] [--scheduler-kube-api-burst 200] [--cpu-prof-dir DIR]
 * --cpu-prof-dir runs the controller-manager under `node --cpu-prof` and keeps
 * its .cpuprofile in DIR (written when it exits; its CPU figures are then higher).
 * The controller-manager gives each controller its own client with that
 * QPS/burst (as upstream does). The scheduler's own client defaults to 50/100
 * upstream, which alone caps binding at 50 pods/s, so the benchmark raises it
 * to what the pace needs and reports it.
 */
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { RESOURCES } from '../../src/client/index.js';
import { processCpuMs, runBenchmark } from '../apiserver/processes.js';
import { scrape, type Scrape } from '../kubelet/measure.js';
import { startBenchCluster } from './cluster.js';
import { startControllerManager } from './controller_manager.js';
import { budgetLines, eventWritesBySource } from './budget.js';
import { startWatchers } from './watch_bytes.js';
import { createPaced, deployment, NS, PodCreations, service, waitAvailable } from './workload.js';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    nodes: { type: 'string' },
    deployments: { type: 'string' },
    replicas: { type: 'string' },
    rate: { type: 'string', default: '100' },
    'roll-replicas': { type: 'string' },
    watchers: { type: 'string' },
    'kube-api-qps': { type: 'string', default: '100' },
    'kube-api-burst': { type: 'string', default: '200' },
    'scheduler-kube-api-qps': { type: 'string', default: '100' },
    'scheduler-kube-api-burst': { type: 'string', default: '200' },
    'cpu-prof-dir': { type: 'string' },
  },
});
const quick = args.quick === true;
const NODES = Number(args.nodes ?? (quick ? 30 : 2500));
const DEPLOYMENTS = Number(args.deployments ?? (quick ? 6 : 500));
const REPLICAS = Number(args.replicas ?? (quick ? 5 : 30));
const RATE = Number(args.rate);
const ROLL = Number(args['roll-replicas'] ?? (quick ? 40 : 1000));
const WATCHERS = Number(args.watchers ?? (quick ? 4 : 50));
const QPS = args['kube-api-qps']!;
const BURST = args['kube-api-burst']!;
const SCHED_QPS = args['scheduler-kube-api-qps']!;
const SCHED_BURST = args['scheduler-kube-api-burst']!;
const PROF_DIR = args['cpu-prof-dir'] !== undefined ? resolve(args['cpu-prof-dir']) : undefined;

const log = (msg: string): void => void process.stderr.write(`[bench/controllers] ${msg}\n`);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const fmt = (n: number, d = 1): string => (Number.isFinite(n) ? n.toFixed(d) : '-');
const mib = (b: number): string => `${(b / 1024 / 1024).toFixed(2)} MiB`;

/** Mutating requests between two scrapes, by `VERB resource[/sub]`. */
function writesBetween(a: Scrape, b: Scrape): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of b.requests) {
    if (!/^(POST|PUT|PATCH|DELETE) /.test(k)) continue;
    const d = v - (a.requests.get(k) ?? 0);
    if (d > 0) out.set(k, d);
  }
  return new Map([...out].sort((x, y) => y[1] - x[1]));
}

await runBenchmark('bench/controllers', log, async (cleanup) => {
  const { kubeconfig, base, serverPid, rest, fleet, placement } = await startBenchCluster(cleanup, 'controllers', {
    nodes: NODES,
    quick: quick,
    schedulerQPS: SCHED_QPS,
    schedulerBurst: SCHED_BURST,
    log,
  });
  const cmPid = await startControllerManager(cleanup, kubeconfig, {
    controllers: 'replicaset-controller,deployment-controller,endpointslice-controller,endpoints-controller',
    qps: QPS,
    burst: BURST,
    profDir: PROF_DIR,
  });
  await rest.resource(RESOURCES.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });

  // Phase 1: Deployments and Services at a paced pod rate.
  const pods = new PodCreations();
  await pods.start(rest);
  const names = new Set(Array.from({ length: DEPLOYMENTS }, (_, i) => `d-${i}`));
  log(
    `phase 1: ${DEPLOYMENTS} Deployments x ${REPLICAS} replicas at ${RATE} pods/s, controller-manager QPS ${QPS}/${BURST}, placement: ${placement.kind}`,
  );
  const s0 = await scrape(base);
  const cpuNow = (): Record<'cm' | 'server' | 'fleet' | 'scheduler', number> => ({
    cm: processCpuMs(cmPid)!,
    server: processCpuMs(serverPid)!,
    fleet: processCpuMs(fleet.pid)!,
    scheduler: placement.pid !== undefined ? (processCpuMs(placement.pid) ?? NaN) : NaN,
  });
  const load0 = loadavg()[0]!;
  const cpu0 = cpuNow();
  const t0 = Date.now();
  await createPaced(rest, 'd', DEPLOYMENTS, REPLICAS, RATE);
  const tCreated = Date.now();
  const tAvailable = await waitAvailable(rest, names, 30 * 60_000, log);
  const s1 = await scrape(base);
  const wall1 = (tAvailable - t0) / 1000;
  const cpu1 = cpuNow();
  const load1 = loadavg()[0]!;
  const events1 = await eventWritesBySource(rest, NS);
  const created = pods.times.length;
  const firstPod = pods.times[0] ?? t0;
  const lastPod = pods.times[created - 1] ?? t0;
  await pods.stop();

  // Phase 2: a rolling update of one big Deployment, watched through Endpoints and EndpointSlices.
  log(`phase 2: rolling update of ${ROLL} pods, ${WATCHERS} watchers of each kind`);
  await rest.resource(RESOURCES.services).create(service('roll'));
  await rest.resource(RESOURCES.deployments).create(deployment('roll', ROLL));
  await waitAvailable(rest, new Set(['roll']), 20 * 60_000, log);
  await sleep(3_000);
  const rv = (await rest.resource(RESOURCES.endpoints).list({ limit: 1 })).metadata!.resourceVersion!;
  const epWatch = startWatchers(base, '/api/v1/endpoints', rv, WATCHERS);
  const sliceWatch = startWatchers(base, '/apis/discovery.k8s.io/v1/endpointslices', rv, WATCHERS);
  cleanup.add(() => {
    epWatch.stop();
    sliceWatch.stop();
  });
  const cpuRoll0 = processCpuMs(cmPid)!;
  const tRoll = Date.now();
  await rest
    .resource(RESOURCES.deployments)
    .patch(
      'roll',
      'merge',
      { spec: { template: { metadata: { annotations: { 'kscale.io/restartedAt': new Date().toISOString() } } } } },
      { namespace: NS },
    );
  await sleep(1_500);
  await waitAvailable(rest, new Set(['roll']), 20 * 60_000, log);
  const rollS = (Date.now() - tRoll) / 1000;
  // Let the last endpoint changes reach the watchers: stop once neither count moved for 3 s.
  for (let last = -1; last !== epWatch.bytes() + sliceWatch.bytes(); await sleep(3_000))
    last = epWatch.bytes() + sliceWatch.bytes();
  const rollCpu = processCpuMs(cmPid)! - cpuRoll0;
  epWatch.stop();
  sliceWatch.stop();

  // Report.
  const writes = writesBetween(s0, s1);
  const eventWrites = [...writes].filter(([k]) => k.endsWith(' events')).reduce((n, [, v]) => n + v, 0);
  const out: string[] = [];
  out.push(
    `bench/controllers (${new Date().toISOString().slice(0, 10)}), ${cpus().length} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  out.push(
    `nodes ${NODES}, Deployments ${DEPLOYMENTS} x ${REPLICAS} + ${DEPLOYMENTS} Services, asked at ${RATE} pods/s; controller-manager --kube-api-qps ${QPS} --kube-api-burst ${BURST} (per controller); placement: ${placement.kind} (--kube-api-qps ${SCHED_QPS} --kube-api-burst ${SCHED_BURST})`,
  );
  out.push('');
  out.push('phase 1: create');
  out.push(`  pods created                         ${created}`);
  out.push(
    `  time until all available             ${fmt(wall1)} s (creates issued over ${fmt((tCreated - t0) / 1000)} s)`,
  );
  out.push(
    `  pod creation rate (first to last)    ${fmt(created / Math.max(0.001, (lastPod - firstPod) / 1000))} pods/s`,
  );
  out.push(`  last pod created after last create   ${fmt((lastPod - tCreated) / 1000)} s`);
  out.push(
    `  controller-manager CPU               ${fmt(((cpu1.cm - cpu0.cm) / 1000 / wall1) * 100)} % of a core (${fmt((cpu1.cm - cpu0.cm) / 1000)} s)`,
  );
  out.push(
    `  kscale server CPU                    ${fmt(((cpu1.server - cpu0.server) / 1000 / wall1) * 100)} % of a core`,
  );
  out.push(
    `  fleet CPU                            ${fmt(((cpu1.fleet - cpu0.fleet) / 1000 / wall1) * 100)} % of a core`,
  );
  out.push(
    `  scheduler CPU                        ${fmt(((cpu1.scheduler - cpu0.scheduler) / 1000 / wall1) * 100)} % of a core`,
  );
  const perPod = (k: keyof typeof cpu0): string => fmt((cpu1[k] - cpu0[k]) / created, 2);
  out.push(
    `  CPU ms per pod: controller-manager ${perPod('cm')}, server ${perPod('server')}, fleet ${perPod('fleet')}, scheduler ${perPod('scheduler')}`,
  );
  out.push(`  load average (1 min) at start / end  ${fmt(load0, 2)} / ${fmt(load1, 2)}`);
  out.push(`  API writes per created pod (Events apart: ${fmt(eventWrites / created, 2)} per pod)`);
  for (const [k, v] of writes)
    if (!k.endsWith(' events')) out.push(`    ${k.padEnd(36)} ${fmt(v / created, 3)}  (${v})`);
  out.push(
    `  Event writes per pod by source: ${[...events1].map(([c, n]) => `${c} ${fmt(n / created, 3)}`).join(', ')}`,
  );
  out.push("  each controller's own client bucket (writes by resource, Events by source):");
  out.push(...budgetLines(writes, events1, created, Number(QPS)));
  out.push('');
  out.push(
    `phase 2: rolling update of ${ROLL} pods (${fmt(rollS)} s, controller-manager ${fmt(rollCpu / 1000)} s CPU)`,
  );
  const perEp = epWatch.bytes() / WATCHERS;
  const perSlice = sliceWatch.bytes() / WATCHERS;
  out.push(`  Endpoints watch bytes per watcher       ${mib(perEp)} (${fmt(epWatch.events() / WATCHERS, 0)} events)`);
  out.push(
    `  EndpointSlice watch bytes per watcher   ${mib(perSlice)} (${fmt(sliceWatch.events() / WATCHERS, 0)} events)`,
  );
  out.push(`  Endpoints / EndpointSlices              ${fmt(perEp / perSlice, 2)}x`);
  out.push(
    `  scaled to one watcher per node (${NODES}): Endpoints ${mib(perEp * NODES)}, EndpointSlices ${mib(perSlice * NODES)}`,
  );
  if (PROF_DIR !== undefined)
    out.push('', `controller-manager CPU profile: in ${PROF_DIR}, named after pid ${cmPid} (written at exit)`);
  console.log(out.join('\n'));
});
