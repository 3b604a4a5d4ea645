import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Counter, Histogram, Registry } from 'prom-client';
import { FastCounter, FastHistogram } from './fast_metrics.js';

const LABELS = ['verb', 'resource', 'code'];
const BUCKETS = [0.005, 0.025, 0.1, 1];
const SERIES = [
  { verb: 'GET', resource: 'pods', code: '200' },
  { verb: 'LIST', resource: 'nodes', code: '200' },
  { verb: 'GET', resource: 'pods', code: '404' },
];
const VALUES = [0.001, 0.005, 0.0051, 0.03, 0.1, 0.5, 2, 7.25];

/** The same observations through prom-client and through the fast metrics, in two registries. */
async function both(): Promise<{ slow: Registry; fast: Registry }> {
  const slow = new Registry();
  const fast = new Registry();
  const c1 = new Counter({ name: 'x_total', help: 'h', labelNames: LABELS, registers: [slow] });
  const h1 = new Histogram({ name: 'x_seconds', help: 'h', labelNames: LABELS, buckets: BUCKETS, registers: [slow] });
  const c2 = new FastCounter('x_total', 'h', LABELS, [fast]);
  const h2 = new FastHistogram('x_seconds', 'h', LABELS, BUCKETS, [fast]);
  SERIES.forEach((labels, i) => {
    const counter = c2.labels(labels);
    const hist = h2.labels(labels);
    for (const v of VALUES.slice(i)) {
      c1.inc(labels);
      counter.inc();
      h1.observe(labels, v);
      hist.observe(v);
    }
  });
  // A child resolved but never used prints nothing, as prom-client prints nothing for labels never observed.
  h2.labels({ verb: 'PUT', resource: 'pods', code: '200' });
  c2.labels({ verb: 'PUT', resource: 'pods', code: '200' });
  return Promise.resolve({ slow, fast });
}

test('fast counters and histograms print exactly what prom-client prints for the same observations', async () => {
  const { slow, fast } = await both();
  const want = await slow.metrics();
  assert.match(want, /x_seconds_bucket\{le="0.025",verb="GET",resource="pods",code="200"\} 3/);
  assert.equal(await fast.metrics(), want);
  // The JSON export has the same series (prom-client adds empty exemplar fields).
  const series = async (r: Registry): Promise<unknown> =>
    (await r.getMetricsAsJSON()).map((m) => ({
      name: m.name,
      type: m.type,
      values: m.values.map((v) => ({
        metricName: (v as { metricName?: string }).metricName,
        labels: v.labels,
        value: v.value,
      })),
    }));
  assert.deepEqual(await series(fast), await series(slow));
});

test('reset zeroes the series and children handed out keep counting', async () => {
  const reg = new Registry();
  const h = new FastHistogram('y_seconds', 'h', ['verb'], BUCKETS, [reg]);
  const child = h.labels({ verb: 'GET' });
  child.observe(0.01);
  reg.resetMetrics();
  assert.doesNotMatch(await reg.metrics(), /y_seconds_count/);
  child.observe(0.2);
  assert.match(await reg.metrics(), /y_seconds_count\{verb="GET"\} 1\n/);
  assert.match(await reg.metrics(), /y_seconds_bucket\{le="0.1",verb="GET"\} 0\n/);
  assert.throws(() => h.labels({ nope: 'x' }), /not included in initial labelset/);
});
