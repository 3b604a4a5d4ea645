import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flowControlHtml, flowControlSummaryLines, throttlingLesson } from './flowcontrol_html.js';
import type { FlowControlReport } from './flowcontrol_targets.js';
import type { LabReport } from './report.js';
import { percentiles } from './stats.js';

const calls = (tooManyRequests: number) => ({
  sent: 100,
  ok: 100 - tooManyRequests,
  tooManyRequests,
  otherErrors: 0,
  latencyMs: percentiles([1, 2, 3]),
});

/** A report with the throttling experiment's figures: APF on or off, Lease p99 and 429s, the neighbour's 429s. */
function report(enabled: boolean, leaseP99S: number, lease429: number, noisy429: number): LabReport {
  const flowControl: FlowControlReport = {
    enabled,
    priorityLevels: enabled
      ? [
          {
            priorityLevel: 'workload-low',
            nominalSeats: 245,
            dispatched: 900,
            rejected: noisy429,
            rejectedByReason: { 'queue-full': noisy429 },
            queued: 700,
            waitP50S: 0.2,
            waitP99S: 2,
            inqueuePeak: 300,
            executingSeatsPeak: 245,
          },
        ]
      : [],
    heartbeat: { leaseWriteP99S: leaseP99S, leaseWrites: 500, leaseTooManyRequests: lease429, nodesTurnedNotReady: 0 },
    noisyNeighbour: {
      load: { listsInFlight: 50, writesInFlight: 250 },
      lists: calls(0),
      writes: calls(noisy429),
      flowSchema: 'service-accounts',
      shareOfDispatched: 0.4,
      avgCores: 0.31,
    },
  };
  return {
    flowControl,
    serverRuntime: {
      eventLoopLagP99Ms: percentiles([12, 48]),
      eventLoopLagMaxMs: percentiles([60]),
      gcShare: percentiles([0]),
    },
    processes: [{ name: 'server', avgCores: 0.93 }],
  } as unknown as LabReport;
}

test('under APF the lesson says the neighbour waits and heartbeats keep their seats, with this run figures', () => {
  const l = throttlingLesson(report(true, 0.05, 0, 40));
  assert.match(l, /^API Priority and Fairness gives each kind of client its own share/);
  assert.match(
    l,
    /Shown here: the neighbour got 40 429s \(workload-low queued 700, rejected 40\); Lease write p99 50\.0 ms, 0 Lease requests answered 429/,
  );
  assert.match(l, /server used 0\.93 cores with event loop lag p99 up to 48 ms and the neighbour 0\.31 cores/);
  assert.match(throttlingLesson(report(true, 1.5, 0, 40)), /Not shown here \(a heartbeat figure misses the target\)/);
});

test('under max-in-flight the lesson says the flood takes the Leases slots, and whether this run shows it', () => {
  const l = throttlingLesson(report(false, 2.1, 37, 90));
  assert.match(l, /^With max-in-flight alone/);
  assert.match(l, /Shown here: the neighbour got 90 429s; Lease write p99 2100\.0 ms, 37 Lease requests answered 429/);
  assert.match(throttlingLesson(report(false, 0.05, 0, 90)), /Not shown here \(the flood did not take the slots/);
});

test('the lesson sits next to the figures in report.html and the terminal summary, and not without a neighbour', () => {
  const r = report(true, 0.05, 0, 40);
  const html = flowControlHtml(r);
  assert.ok(html.indexOf('<p class="lesson"><b>Lesson.</b> API Priority') > html.indexOf('Node heartbeats'), html);
  assert.ok(flowControlSummaryLines(r).some((x) => x.startsWith('lesson: API Priority and Fairness')));
  r.flowControl!.noisyNeighbour = null;
  assert.equal(throttlingLesson(r), '');
  assert.doesNotMatch(flowControlHtml(r), /Lesson\./);
});
