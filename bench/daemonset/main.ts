/**
 * The DaemonSet benchmark (issue 24's target): a `kscale server`, N hollow
 * nodes, `kscale scheduler` and `kscale controller-manager` running only the
 * daemonset controller.
 * 1. Roll-out: one DaemonSet is created; it measures the time until every
 *    node runs an available daemon pod (target: 2,500 nodes in under 60 s).
 * 2. Rolling update: the template's image changes with maxUnavailable 10%;
 *    it measures the time until every node runs an available pod of the new
 *    revision (target: under 5 minutes).
 * It also reports the controller-manager's CPU and the API writes per node.
 *
 *   node dist/bench/daemonset/main.js [--quick] [--nodes 2500] [--max-unavailable 10%]
 *     [--kube-api-qps 100] [--kube-api-burst 200] [--scheduler-kube-api-qps 100] [--scheduler-kube-api-burst 200]
 */
import { parseArgs } from 'node:util';
import { RESOURCES, RESTClient, type KubeObject } from '../../src/client/index.js';
import type { DaemonSet } from '../../src/api/index.js';
import { processCpuMs, runBenchmark } from '../apiserver/processes.js';
import { scrape, type Scrape } from '../kubelet/measure.js';
import { startControllerManager } from '../controllers/controller_manager.js';
import { startBenchCluster } from '../controllers/cluster.js';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    nodes: { type: 'string' },
    'max-unavailable': { type: 'string', default: '10%' },
    'kube-api-qps': { type: 'string', default: '100' },
    'kube-api-burst': { type: 'string', default: '200' },
    'scheduler-kube-api-qps': { type: 'string', default: '100' },
    'scheduler-kube-api-burst': { type: 'string', default: '200' },
  },
});
const quick = args.quick === true;
const NODES = Number(args.nodes ?? (quick ? 50 : 2500));
const MAX_UNAVAILABLE = /^\d+$/.test(args['max-unavailable']!)
  ? Number(args['max-unavailable'])
  : args['max-unavailable']!;
const NS = 'default';
const TIMEOUT_MS = 15 * 60 * 1000;

const log = (msg: string): void => void process.stderr.write(`[bench/daemonset] ${msg}\n`);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function daemonSet(): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'bench-agent', namespace: NS },
    spec: {
      selector: { matchLabels: { app: 'bench-agent' } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: MAX_UNAVAILABLE, maxSurge: 0 } },
      template: {
        metadata: { labels: { app: 'bench-agent' } },
        spec: { containers: [{ name: 'agent', image: 'agent:1' }] },
      },
    },
  };
}

/** Polls the DaemonSet until every node runs an available pod of the current generation; returns the seconds taken. */
async function waitRolledOut(rest: RESTClient, started: number, what: string): Promise<number> {
  const client = rest.resource<DaemonSet>(RESOURCES.daemonsets);
  let last = '';
  for (;;) {
    const ds = await client.get('bench-agent', { namespace: NS });
    const s = ds.status ?? {};
    const line = `${what}: desired ${s.desiredNumberScheduled ?? 0} updated ${s.updatedNumberScheduled ?? 0} available ${s.numberAvailable ?? 0}`;
    if (line !== last) log(line);
    last = line;
    if (
      (s.observedGeneration ?? 0) >= (ds.metadata?.generation ?? 0) &&
      s.desiredNumberScheduled === NODES &&
      s.updatedNumberScheduled === NODES &&
      s.numberAvailable === NODES
    )
      return (Date.now() - started) / 1000;
    if (Date.now() - started > TIMEOUT_MS) throw new Error(`${what} did not finish in ${TIMEOUT_MS / 1000} s: ${line}`);
    await sleep(250);
  }
}

/** POST/PUT/PATCH/DELETE requests between two scrapes, summed. */
function writes(a: Scrape, b: Scrape): number {
  let n = 0;
  for (const [k, v] of b.requests) if (/^(POST|PUT|PATCH|DELETE) /.test(k)) n += v - (a.requests.get(k) ?? 0);
  return n;
}

await runBenchmark('bench/daemonset', log, async (cleanup) => {
  const { kubeconfig, base, rest, placement } = await startBenchCluster(cleanup, 'daemonset', {
    nodes: NODES,
    quick: quick,
    schedulerQPS: args['scheduler-kube-api-qps']!,
    schedulerBurst: args['scheduler-kube-api-burst']!,
    log,
  });
  const cmPid = await startControllerManager(cleanup, kubeconfig, {
    controllers: 'daemonset-controller',
    qps: args['kube-api-qps']!,
    burst: args['kube-api-burst']!,
  });

  const cpu0 = processCpuMs(cmPid) ?? NaN;
  const s0 = await scrape(base);
  const t0 = Date.now();
  await rest.resource<KubeObject>(RESOURCES.daemonsets).create(daemonSet() as KubeObject, { namespace: NS });
  const rollout = await waitRolledOut(rest, t0, 'roll-out');
  const cpu1 = processCpuMs(cmPid) ?? NaN;
  const s1 = await scrape(base);

  const t1 = Date.now();
  await rest
    .resource<KubeObject>(RESOURCES.daemonsets)
    .patch(
      'bench-agent',
      'strategic',
      { spec: { template: { spec: { containers: [{ name: 'agent', image: 'agent:2' }] } } } },
      { namespace: NS },
    );
  const update = await waitRolledOut(rest, t1, 'rolling update');
  const cpu2 = processCpuMs(cmPid) ?? NaN;
  const s2 = await scrape(base);

  const lines = [
    `bench/daemonset: ${NODES} hollow nodes, placement by ${placement.kind}, maxUnavailable ${String(MAX_UNAVAILABLE)}`,
    `  roll-out:       ${rollout.toFixed(1)} s (target < 60 s at 2,500 nodes), controller CPU ${((cpu1 - cpu0) / 1000).toFixed(1)} s, API writes/node ${(writes(s0, s1) / NODES).toFixed(2)}`,
    `  rolling update: ${update.toFixed(1)} s (target < 300 s at 2,500 nodes), controller CPU ${((cpu2 - cpu1) / 1000).toFixed(1)} s, API writes/node ${(writes(s1, s2) / NODES).toFixed(2)}`,
  ];
  if (quick) lines.push('  (--quick: the figures mean nothing)');
  console.log(lines.join('\n'));
});
