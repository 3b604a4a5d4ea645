/**
 * Micro-benchmark of the workqueue metrics' cost: one add, get and done
 * cycle per key on a named RateLimitingQueue, with the Prometheus workqueue
 * provider installed (metrics on) and without it (metrics off). Prints ns per
 * cycle for each (median of --rounds rounds of --keys keys) and the overhead.
 *
 *   node dist/bench/workqueue/main.js [--keys=100000] [--rounds=7]
 */
import { Registry } from 'prom-client';
import { prometheusWorkqueueMetrics, RateLimitingQueue, setWorkqueueMetricsProvider } from '../../src/client/index.js';
import { RealClock } from '../../src/clock/index.js';

const args = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k!, v ?? 'true'];
  }),
);
const KEYS = Number(args.get('keys') ?? 100_000);
const ROUNDS = Number(args.get('rounds') ?? 7);
const keys = Array.from({ length: KEYS }, (_, i) => `ns-${i % 100}/obj-${i}`);

/** ns per add+get+done cycle over every key, once. */
async function round(): Promise<number> {
  const q = new RateLimitingQueue<string>({ name: 'bench' });
  const t0 = process.hrtime.bigint();
  for (const k of keys) q.add(k);
  for (let i = 0; i < KEYS; i++) {
    const k = (await q.get())!;
    q.done(k);
  }
  const ns = Number(process.hrtime.bigint() - t0) / KEYS;
  q.shutDown();
  return ns;
}

async function median(): Promise<number> {
  const xs: number[] = [];
  await round(); // warm-up
  for (let r = 0; r < ROUNDS; r++) xs.push(await round());
  xs.sort((a, b) => a - b);
  return xs[Math.floor(xs.length / 2)]!;
}

setWorkqueueMetricsProvider(undefined);
const off = await median();
const clock = new RealClock();
setWorkqueueMetricsProvider(prometheusWorkqueueMetrics(new Registry(), () => clock.now()));
const on = await median();
setWorkqueueMetricsProvider(undefined);
process.stdout.write(
  `workqueue add+get+done: metrics off ${off.toFixed(0)} ns, on ${on.toFixed(0)} ns, overhead ${(on - off).toFixed(0)} ns per key (${KEYS} keys, median of ${ROUNDS})\n`,
);
