import assert from 'node:assert/strict';
import { test } from 'node:test';
import { snapshotOf } from './api_metrics.js';
import { agreeWithin, compareSlis } from './prom_slo.js';

const LE = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, Infinity];

test('two p99s agree within 5%, or within one histogram bucket, and not further apart', () => {
  assert.ok(agreeWithin(0.2, 0.205, LE), 'within 5%');
  assert.ok(agreeWithin(0.03, 0.07, LE), 'adjacent buckets');
  assert.ok(!agreeWithin(0.007, 0.2, LE), 'three buckets apart');
});

/** /metrics text with apiserver_request_sli_duration_seconds for each (verb, resource) → calls, all in the 0.1 s bucket. */
function metricsText(series: Record<string, number>): string {
  const lines = ['# TYPE apiserver_request_sli_duration_seconds histogram'];
  for (const [key, n] of Object.entries(series)) {
    const [verb, resource] = key.split(' ') as [string, string];
    const l = `component="apiserver",group="",resource="${resource}",scope="cluster",subresource="",verb="${verb}",version="v1"`;
    for (const le of ['0.05', '0.1', '+Inf'])
      lines.push(`apiserver_request_sli_duration_seconds_bucket{${l},le="${le}"} ${le === '0.05' ? 0 : n}`);
    lines.push(`apiserver_request_sli_duration_seconds_count{${l}} ${n}`);
    lines.push(`apiserver_request_sli_duration_seconds_sum{${l}} ${n * 0.08}`);
  }
  return `${lines.join('\n')}\n`;
}

const snapshots2 = (): ReturnType<typeof snapshotOf> =>
  snapshotOf(metricsText({ 'GET pods': 250, 'POST certificatesigningrequests': 120 }), 4);

test('calls before the first sample inside the range do not count towards checking an SLI', () => {
  const snaps = [
    snapshotOf(metricsText({ 'GET pods': 50 }), 0),
    snapshotOf(metricsText({ 'GET pods': 150, 'POST certificatesigningrequests': 120 }), 2),
    snapshotOf(metricsText({ 'GET pods': 250, 'POST certificatesigningrequests': 120 }), 4),
  ];
  // PromQL's answer: the GET p99 only; increase() saw no POST calls, so that series has no quantile.
  const result = [{ metric: { resource: 'pods', subresource: '', verb: 'GET', scope: 'cluster' }, value: 0.0995 }];
  const { rows, agree } = compareSlis(snaps, result);
  const get = rows.find((r) => r.verb === 'GET')!;
  const post = rows.find((r) => r.verb === 'POST')!;
  assert.equal(get.count, 200);
  assert.equal(get.visible, 100, "the 100 calls of the range's first interval may precede PromQL's first sample");
  assert.ok(get.checked && get.agree);
  assert.equal(post.count, 120);
  assert.equal(post.visible, 0, 'every call came before the series was first sampled');
  assert.equal(post.promql, null);
  assert.equal(post.checked, false);
  assert.equal(agree, true);
  // Had the POSTs come after the range's first interval, they would count and be checked.
  const seen = compareSlis(
    [
      snapshotOf(metricsText({ 'GET pods': 50, 'POST certificatesigningrequests': 0 }), 0),
      snapshotOf(metricsText({ 'GET pods': 150, 'POST certificatesigningrequests': 0 }), 2),
      snapshots2(),
    ],
    result,
  );
  assert.equal(seen.rows.find((r) => r.verb === 'POST')!.visible, 120);
  assert.equal(seen.rows.find((r) => r.verb === 'POST')!.checked, true);
  assert.equal(seen.agree, false, 'checked, and PromQL has no figure for it');
});
