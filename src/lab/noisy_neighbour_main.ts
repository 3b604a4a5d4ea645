/**
 * The noisy neighbour's process (started by the lab, see noisy_neighbour.ts):
 * `--kubeconfig --namespace --lists --writes --stats`. It saves its figures
 * every second and once more on SIGTERM, then exits.
 */
import { parseArgs } from 'node:util';
import { loadKubeconfig, RESTClient } from '../client/index.js';
import { NoisyNeighbour } from './noisy_neighbour.js';

const { values: o } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    namespace: { type: 'string' },
    lists: { type: 'string', default: '50' },
    writes: { type: 'string', default: '250' },
    stats: { type: 'string' },
  },
});
if (o.kubeconfig === undefined || o.namespace === undefined || o.stats === undefined) {
  process.stderr.write('noisy neighbour: --kubeconfig, --namespace and --stats are required\n');
  process.exit(2);
}
const statsFile = o.stats;
// maxRetries 0: every 429 reaches the neighbour's own count instead of the client's retry loop.
const client = new RESTClient(
  { ...loadKubeconfig({ path: o.kubeconfig }), qps: 0, burst: 1, userAgent: 'kscale-noisy-neighbour' },
  { maxRetries: 0 },
);
const nn = new NoisyNeighbour(
  client,
  { listsInFlight: Number(o.lists), writesInFlight: Number(o.writes) },
  o.namespace,
);
const stop = new AbortController();
process.once('SIGTERM', () => stop.abort());
process.once('SIGINT', () => stop.abort());
try {
  await nn.prepare();
} catch (err) {
  process.stderr.write(`noisy neighbour: ${(err as Error).message}\n`);
  process.exit(1);
}
process.stdout.write('noisy neighbour started\n');
const saver = setInterval(() => nn.save(statsFile), 1000);
await nn.run(stop.signal);
clearInterval(saver);
nn.save(statsFile);
process.exit(0);
