import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientApiLatencies } from './api_metrics.js';

test("client-side SLI entries: each call's SLI class and scope, seconds, the whole run as the window", () => {
  const ms = Array.from({ length: 100 }, (_, i) => i + 1);
  const out = clientApiLatencies(
    new Map([
      ['pods POST', ms],
      ['pods LIST', [10, 20]],
      ['namespaces POST', [5]],
      ['deployments PATCH', []],
    ]),
    42,
  );
  assert.deepEqual(
    out.map((e) => [e.resource, e.verb, e.scope, e.sli, e.count]),
    [
      ['pods', 'POST', 'namespace', 'mutating', 100],
      ['pods', 'LIST', 'namespace', 'read-namespace', 2],
      ['namespaces', 'POST', 'cluster', 'mutating', 1],
    ],
  );
  assert.equal(out[0]!.p99, 0.099);
  assert.equal(out[0]!.p50, 0.05);
  assert.ok(out.every((e) => e.windowEnd === 42));
});
