/**
 * The hollow-kubelet benchmark: N hollow nodes in one `kscale nodes` process
 * against a `kscale server` at default settings, for each heartbeat mode and
 * node status update frequency. Each configuration gets a fresh server; after
 * every node is Ready (and optional pods run), a steady window measures the
 * fleet's CPU and RSS, the server's CPU and RSS, API requests/s by verb and
 * resource, and storage writes.
 *
 *   node dist/bench/kubelet/main.js [--nodes 2500] [--steady 60] [--quick]
 *     [--configs lease@10s,status@10s,...] [--pod-watch per-node|shared] [--pods-per-node 0] [--join-rate 50]
 */
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { RESOURCES, RESTClient, loadKubeconfig } from '../../src/client/index.js';
import { callFleet, findFleets, type FleetStats } from '../../src/kubelet/index.js';
import { Cleanup, processCpuMs, startKscale, tempDir } from '../apiserver/processes.js';
import { diskWriteBytes, requestRates, rssBytes, scrape, startFleet } from './measure.js';
import { renderTable, type RunResult } from './report.js';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    nodes: { type: 'string' },
    steady: { type: 'string' },
    configs: { type: 'string' },
    'pod-watch': { type: 'string', default: 'per-node' },
    'pods-per-node': { type: 'string', default: '0' },
    'join-rate': { type: 'string', default: '50' },
  },
});

const quick = args.quick === true;
const NODES = Number(args.nodes ?? (quick ? 200 : 2500));
const STEADY_S = Number(args.steady ?? (quick ? 6 : 60));
const CONFIGS = (
  args.configs ?? (quick ? 'lease@10s,status@1s' : 'lease@1s,lease@10s,lease@40s,status@1s,status@10s,status@40s')
).split(',');
const POD_WATCH = args['pod-watch']!;
const PODS_PER_NODE = Number(args['pods-per-node']);
const JOIN_RATE = args['join-rate']!;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const log = (msg: string): void => void process.stderr.write(`[bench/kubelet] ${msg}\n`);

async function fleetStats(kubeconfig: string): Promise<FleetStats> {
  const [f] = findFleets(kubeconfig);
  if (f === undefined) throw new Error('fleet endpoint not found');
  return callFleet<FleetStats>(f, 'GET', '/status');
}

/** Creates pods bound to every node (spec.nodeName set), 64 in flight, and waits until the fleet runs them. */
async function createPods(rest: RESTClient, kubeconfig: string): Promise<number> {
  const total = NODES * PODS_PER_NODE;
  await rest
    .resource(RESOURCES.namespaces)
    .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
  const pods = rest.resource(RESOURCES.pods);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < total; i = next++) {
      const node = `hollow-node-${i % NODES}`;
      await pods.create({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `p-${i}`, namespace: 'bench' },
        spec: { nodeName: node, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
      });
    }
  };
  await Promise.all(Array.from({ length: 64 }, worker));
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    const s = await fleetStats(kubeconfig);
    if (s.podsStarted >= total || Date.now() > deadline) return s.podsStarted;
    await sleep(1_000);
  }
}

async function runOne(config: string): Promise<RunResult> {
  const [heartbeat, freq] = config.split('@') as [string, string];
  const cleanup = new Cleanup();
  try {
    const dir = tempDir(cleanup, 'kubelet');
    const server = await startKscale(cleanup, join(dir, 'data'), ['--write-kubeconfig', join(dir, 'kubeconfig')], []);
    const base = `http://${server.host}:${server.port}`;
    const kubeconfig = join(dir, 'kubeconfig');
    const rest = new RESTClient(loadKubeconfig({ path: kubeconfig }));
    cleanup.add(() => rest.close());
    const fleetArgs = [
      '--count',
      String(NODES),
      '--heartbeat',
      heartbeat,
      '--node-status-update-frequency',
      freq,
      '--pod-watch',
      POD_WATCH,
      '--join-rate',
      JOIN_RATE,
    ];
    const t0 = Date.now();
    const fleet = await startFleet(cleanup, kubeconfig, fleetArgs);
    const nodes = (await rest.resource(RESOURCES.nodes).list()).items as {
      status?: { conditions?: { type: string; status: string }[] };
    }[];
    const ready = nodes.filter((n) =>
      n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    ).length;
    const allReadyS = ready >= NODES ? (Date.now() - t0) / 1000 : NaN;
    log(
      `${config}: ${ready}/${NODES} Ready after ${((Date.now() - t0) / 1000).toFixed(1)} s (fleet said registered at ${(fleet.registeredMs / 1000).toFixed(1)} s)`,
    );
    const podsRunning = PODS_PER_NODE > 0 ? await createPods(rest, kubeconfig) : 0;
    // Let the join's burst drain out of the status and lease loops before measuring.
    await sleep(quick ? 1_000 : 5_000);
    const a = await scrape(base);
    const cpu0 = [processCpuMs(fleet.pid)!, processCpuMs(server.pid)!];
    const disk0 = diskWriteBytes(server.pid);
    const w0 = Date.now();
    await sleep(STEADY_S * 1000);
    const secs = (Date.now() - w0) / 1000;
    const cpu1 = [processCpuMs(fleet.pid)!, processCpuMs(server.pid)!];
    const disk1 = diskWriteBytes(server.pid);
    const b = await scrape(base);
    const r: RunResult = {
      label: config,
      nodes: NODES,
      allReadyS,
      fleetCores: (cpu1[0]! - cpu0[0]!) / 1000 / secs,
      fleetRssMiB: rssBytes(fleet.pid) / 2 ** 20,
      serverCores: (cpu1[1]! - cpu0[1]!) / 1000 / secs,
      serverRssMiB: rssBytes(server.pid) / 2 ** 20,
      requestRates: requestRates(a, b, secs),
      failedPerS: (b.failed - a.failed) / secs,
      diskWriteKiBs: (disk1 - disk0) / 1024 / secs,
      storageGrowthKiBs: (b.storageBytes - a.storageBytes) / 1024 / secs,
      podsRunning,
    };
    log(
      `${config}: fleet ${r.fleetCores.toFixed(3)} cores ${r.fleetRssMiB.toFixed(0)} MiB, server ${r.serverCores.toFixed(3)} cores`,
    );
    return r;
  } finally {
    await cleanup.run();
  }
}

const results: RunResult[] = [];
for (const c of CONFIGS) results.push(await runOne(c));
const cpu = cpus();
process.stdout.write(
  `kubelet fleet benchmark: ${NODES} hollow nodes in one process, pod-watch=${POD_WATCH}, join rate ${JOIN_RATE}/s, ${PODS_PER_NODE} pods/node, steady window ${STEADY_S} s, fresh kscale server per column at default settings\n` +
    `machine: ${cpu.length} × ${cpu[0]?.model ?? '?'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; fleet, server and this script share it\n\n` +
    `${renderTable(results)}\n`,
);
