/**
 * The reference "scheduler" of the benchmark: binds every pending pod to
 * the next node round-robin, with no filtering or scoring, with the same
 * number of pods/binding calls in flight as the real scheduler. What it
 * reaches is the API server's own ceiling for create + bind on this
 * machine, which bounds any scheduler's throughput.
 *
 *   node dist/bench/scheduler/rr_binder.js <kubeconfig> <inFlight>
 */
import { RESOURCES, RESTClient, loadKubeconfig, type KubeObject } from '../../src/client/index.js';

const [kubeconfig, inFlightArg] = process.argv.slice(2);
const rest = new RESTClient({ ...loadKubeconfig({ path: kubeconfig }), qps: 0 });
const nodes = (await rest.resource(RESOURCES.nodes).list()).items.map((n) => n.metadata!.name!);
const pods = rest.resource<KubeObject & { spec?: { nodeName?: string } }>(RESOURCES.pods);
const maxInFlight = Number(inFlightArg ?? 64);
let next = 0;
let inFlight = 0;
const backlog: KubeObject[] = [];

function pump(): void {
  while (inFlight < maxInFlight && backlog.length > 0) {
    const p = backlog.shift()!;
    inFlight++;
    pods
      .bind(p.metadata!.name!, p.metadata!.namespace!, nodes[next++ % nodes.length])
      .catch(() => undefined)
      .finally(() => {
        inFlight--;
        pump();
      });
  }
}

const list = await pods.list({ fieldSelector: 'spec.nodeName=' });
for (const p of list.items) backlog.push(p);
pump();
process.stdout.write('rr-binder started\n');
const w = await pods.watch({ fieldSelector: 'spec.nodeName=', resourceVersion: list.metadata.resourceVersion });
process.once('SIGTERM', () => process.exit(0));
for await (const ev of w) {
  if (ev.type !== 'ADDED') continue;
  backlog.push(ev.object);
  pump();
}
