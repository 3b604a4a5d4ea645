import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiLatencies, apiSeries, snapshotOf, type ApiSnapshot } from './api_metrics.js';
import { histogramQuantile, histograms, parsePrometheus } from './prom.js';

const text = (fast: number, slow: number): string => `# HELP apiserver_request_sli_duration_seconds x
# TYPE apiserver_request_sli_duration_seconds histogram
apiserver_request_sli_duration_seconds_bucket{verb="POST",resource="pods",subresource="",scope="namespace",le="0.1"} ${fast}
apiserver_request_sli_duration_seconds_bucket{verb="POST",resource="pods",subresource="",scope="namespace",le="1"} ${fast}
apiserver_request_sli_duration_seconds_bucket{verb="POST",resource="pods",subresource="",scope="namespace",le="2"} ${fast + slow}
apiserver_request_sli_duration_seconds_bucket{verb="POST",resource="pods",subresource="",scope="namespace",le="+Inf"} ${fast + slow}
apiserver_request_sli_duration_seconds_bucket{verb="WATCH",resource="pods",subresource="",scope="cluster",le="+Inf"} 5
apiserver_request_total{verb="POST",code="201"} ${fast + slow}
apiserver_request_total{verb="POST",code="429"} 3
`;

test('histogramQuantile interpolates inside the bucket, like PromQL', () => {
  const h = histograms(parsePrometheus(text(90, 10)), 'apiserver_request_sli_duration_seconds', (l) =>
    l.verb === 'POST' ? 'k' : undefined,
  ).get('k')!;
  // rank 50 of 100 falls in (0, 0.1]: 0.1 * 50/90.
  assert.ok(Math.abs(histogramQuantile(0.5, h) - (0.1 * 50) / 90) < 1e-9);
  // rank 99 falls in (1, 2]: 1 + (99-90)/10.
  assert.ok(Math.abs(histogramQuantile(0.99, h) - 1.9) < 1e-9);
});

test('snapshots leave WATCH out of the SLIs and count 429s', () => {
  const s = snapshotOf(text(1, 0), 0);
  assert.deepEqual([...s.sli.keys()], ['pods||POST|namespace']);
  assert.equal(s.tooManyRequests, 3);
});

test('the SLI is the worst 5-minute window, not the whole-run average', () => {
  // 10 minutes of fast calls, then a minute in which 10% of calls are slow.
  const snaps: ApiSnapshot[] = [
    snapshotOf(text(0, 0), 0),
    snapshotOf(text(1000, 0), 300),
    snapshotOf(text(2000, 0), 600),
    snapshotOf(text(2090, 10), 660),
  ];
  const [e] = apiLatencies(snaps);
  assert.equal(e!.sli, 'mutating');
  assert.ok(e!.p99 > 1, `p99 ${e!.p99}`);
  assert.equal(e!.windowEnd, 660);
  // Over the whole run the slow minute is 10 of 2,100 calls: p99 would stay under 1 s.
  const whole = histograms(parsePrometheus(text(2090, 10)), 'apiserver_request_sli_duration_seconds', (l) =>
    l.verb === 'POST' ? 'k' : undefined,
  ).get('k')!;
  assert.ok(histogramQuantile(0.99, whole) < 1);
});

test("the server's runtime series: event loop lag per scrape interval and the share of time in GC", () => {
  const runtime = (
    p99: number,
    max: number,
    gcMinor: number,
    gcMajor: number,
  ): string => `# TYPE nodejs_eventloop_lag_p99_seconds gauge
nodejs_eventloop_lag_p99_seconds ${p99}
# TYPE nodejs_eventloop_lag_max_seconds gauge
nodejs_eventloop_lag_max_seconds ${max}
# TYPE nodejs_gc_duration_seconds histogram
nodejs_gc_duration_seconds_bucket{le="0.001",kind="minor"} 3
nodejs_gc_duration_seconds_sum{kind="minor"} ${gcMinor}
nodejs_gc_duration_seconds_count{kind="minor"} 3
nodejs_gc_duration_seconds_sum{kind="major"} ${gcMajor}
nodejs_gc_duration_seconds_count{kind="major"} 1
`;
  const snaps = [
    snapshotOf(runtime(0.011, 0.02, 0.5, 1), 0),
    snapshotOf(runtime(0.25, 1.5, 0.9, 2.6), 10),
    snapshotOf(text(1, 0), 20),
  ];
  assert.equal(snaps[1]!.gcSeconds, 3.5);
  const s = apiSeries(snaps);
  assert.deepEqual(s.eventLoopLagP99Ms, [250, null]);
  assert.deepEqual(s.eventLoopLagMaxMs, [1500, null]);
  // 2 s of GC in a 10 s interval; a scrape without the series reads as no GC time, never negative.
  assert.ok(Math.abs(s.gcShare[0]! - 0.2) < 1e-9);
  assert.equal(s.gcShare[1], 0);
});
