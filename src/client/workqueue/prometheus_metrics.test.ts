import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { FakeClock } from '../../clock/index.js';
import { setWorkqueueMetricsProvider } from './metrics.js';
import { prometheusWorkqueueMetrics } from './prometheus_metrics.js';
import { RateLimitingQueue } from './rate_limiting_queue.js';

/** The value of one sample line of the text exposition, or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

test('a named queue reports adds, depth, queue and work durations, retries and unfinished work', async () => {
  const clock = new FakeClock(1_000_000);
  const registry = new Registry();
  setWorkqueueMetricsProvider(prometheusWorkqueueMetrics(registry, () => clock.now()));
  try {
    const q = new RateLimitingQueue<string>({ clock, name: 'replicaset' });
    const unnamed = new RateLimitingQueue<string>({ clock });
    unnamed.add('x');
    q.add('a');
    q.add('b');
    q.add('a');
    let text = await registry.metrics();
    assert.equal(sample(text, 'workqueue_adds_total{name="replicaset"}'), 2, 'a deduplicated add is not counted');
    assert.equal(sample(text, 'workqueue_depth{name="replicaset"}'), 2);
    clock.step(3_000);
    const a = await q.get();
    clock.step(500);
    text = await registry.metrics();
    assert.equal(sample(text, 'workqueue_depth{name="replicaset"}'), 1);
    assert.equal(sample(text, 'workqueue_unfinished_work_seconds{name="replicaset"}'), 0.5);
    assert.equal(sample(text, 'workqueue_longest_running_processor_seconds{name="replicaset"}'), 0.5);
    assert.equal(sample(text, 'workqueue_queue_duration_seconds_sum{name="replicaset"}'), 3);
    q.done(a!);
    q.addRateLimited(a!);
    text = await registry.metrics();
    assert.equal(sample(text, 'workqueue_work_duration_seconds_count{name="replicaset"}'), 1);
    assert.equal(sample(text, 'workqueue_work_duration_seconds_sum{name="replicaset"}'), 0.5);
    assert.equal(sample(text, 'workqueue_retries_total{name="replicaset"}'), 1);
    assert.equal(sample(text, 'workqueue_unfinished_work_seconds{name="replicaset"}'), 0);
    assert.ok(!text.includes('name=""'), 'an unnamed queue reports nothing');
    q.shutDown();
    unnamed.shutDown();
  } finally {
    setWorkqueueMetricsProvider(undefined);
  }
});
