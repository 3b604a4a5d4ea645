/**
 * The cluster the controller benchmarks share: a `kscale server` in a temp dir, a hollow-node fleet joining at
 * 1,000 nodes/s with the shared pod watch, and pod placement (the real scheduler when this build has one).
 */
import { join } from 'node:path';
import { RESTClient, loadKubeconfig } from '../../src/client/index.js';
import { startKscale, tempDir, type Cleanup } from '../apiserver/processes.js';
import { startFleet, type FleetProcess } from '../kubelet/measure.js';
import { startPlacement, type Placement } from './placement.js';

/** What a benchmark reads and drives. */
export interface BenchCluster {
  kubeconfig: string;
  /** The server's base URL, for scrapes and raw watches. */
  base: string;
  serverPid: number;
  rest: RESTClient;
  fleet: FleetProcess;
  placement: Placement;
}

/** Starts the server, `nodes` hollow nodes (fast pod start-up when `quick`) and placement with the scheduler's QPS. */
export async function startBenchCluster(
  cleanup: Cleanup,
  name: string,
  opts: { nodes: number; quick: boolean; schedulerQPS: string; schedulerBurst: string; log: (m: string) => void },
): Promise<BenchCluster> {
  const dir = tempDir(cleanup, name);
  const kubeconfig = join(dir, 'kubeconfig');
  const server = await startKscale(cleanup, join(dir, 'data'), ['--write-kubeconfig', kubeconfig], []);
  const rest = new RESTClient({ ...loadKubeconfig({ path: kubeconfig }), qps: 0 });
  cleanup.add(() => rest.close());
  opts.log(`starting ${opts.nodes} hollow nodes`);
  const fleet = await startFleet(cleanup, kubeconfig, [
    '--count',
    String(opts.nodes),
    '--join-rate',
    '1000',
    '--pod-watch',
    'shared',
    ...(opts.quick ? ['--pod-startup-latency', '100,300'] : []),
  ]);
  const placement = await startPlacement(cleanup, kubeconfig, rest, [
    '--port',
    '0',
    '--kube-api-qps',
    opts.schedulerQPS,
    '--kube-api-burst',
    opts.schedulerBurst,
  ]);
  return { kubeconfig, base: `http://${server.host}:${server.port}`, serverPid: server.pid, rest, fleet, placement };
}
