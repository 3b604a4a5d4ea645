import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { parseRequestInfo } from './request_info.js';
import { SlowRequestLog, startTrace, traceStep } from './request_trace.js';
import { StallMonitor } from './stall_monitor.js';

function capture(): { lines: Record<string, unknown>[]; log: { warn(f: Record<string, unknown>, m: string): void } } {
  const lines: Record<string, unknown>[] = [];
  return { lines, log: { warn: (f, msg) => lines.push({ ...f, msg }) } };
}

const info = parseRequestInfo('PATCH', '/api/v1/namespaces/ns/pods/p/status');

test('a request at or over the threshold is logged with its steps in order; a faster one is not', () => {
  const { lines, log } = capture();
  const slow = new SlowRequestLog(log, undefined, 500);
  const res = {} as ServerResponse;
  const t = startTrace(res, performance.now());
  traceStep(res, 'authenticated');
  traceStep(res, 'about to store');
  traceStep({} as ServerResponse, 'not this request');
  slow.finish(t, 499.9, info, 200, 'kubelet');
  assert.equal(lines.length, 0);
  slow.finish(t, 500, info, 200, 'kubelet');
  assert.equal(lines.length, 1);
  const l = lines[0]!;
  assert.deepEqual(
    [l.msg, l.verb, l.resource, l.namespace, l.name, l.code, l.userAgent, l.totalMs],
    ['slow request trace', 'patch', 'pods/status', 'ns', 'p', 200, 'kubelet', 500],
  );
  assert.deepEqual(
    (l.steps as string[]).map((s) => s.replace(/@\d+$/, '')),
    ['authenticated', 'about to store'],
  );
  assert.equal(l.stalledMs, undefined, 'no monitor, no stall fields');
});

test('past 20 lines in a second the rest are counted into the next line written', () => {
  const { lines, log } = capture();
  let now = 10_000;
  const slow = new SlowRequestLog(log, undefined, 0, () => now);
  const t = startTrace({} as ServerResponse, 0);
  for (let i = 0; i < 25; i++) slow.finish(t, 1, info, 200, undefined);
  assert.equal(lines.length, 20);
  now += 1_000;
  slow.finish(t, 1, info, 200, undefined);
  assert.equal(lines.length, 21);
  assert.equal(lines[20]!.suppressedBefore, 5);
  slow.finish(t, 1, info, 200, undefined);
  assert.equal(lines[21]!.suppressedBefore, undefined);
});

test('with a monitor, a line says how much of the request the event loop stood still', async () => {
  const { lines, log } = capture();
  const m = new StallMonitor({ intervalMs: 10, minStallMs: 50 });
  try {
    await new Promise((r) => setTimeout(r, 30));
    const slow = new SlowRequestLog(log, m, 0);
    const started = performance.now();
    const t = startTrace({} as ServerResponse, started);
    while (performance.now() < started + 200);
    await new Promise((r) => setTimeout(r, 30));
    slow.finish(t, performance.now() - started, info, 200, undefined);
    assert.ok((lines[0]!.stalledMs as number) >= 150, JSON.stringify(lines[0]));
    assert.equal(typeof lines[0]!.gcMs, 'number');
  } finally {
    m.stop();
  }
});
