import assert from 'node:assert/strict';
import { test } from 'node:test';
import { failedSlos, junitXml } from './junit.js';
import type { LabReport } from './report.js';
import type { SloEntry } from './measure.js';
import { upExitCode } from '../cmd/lab.js';

const slo = (name: string, measured: number | null, threshold: number, kind: SloEntry['kind'] = 'slo'): SloEntry => ({
  name,
  kind,
  measured,
  threshold,
  unit: 's',
  comparison: '<=',
  pass: measured !== null && measured <= threshold,
  detail: `detail of ${name} <&>`,
});

const report = (slos: SloEntry[], result: LabReport['result'] = 'completed', error?: string): LabReport =>
  ({
    kind: 'kscale-lab-report',
    date: '2026-12-05T00:00:00.000Z',
    config: { scenario: { name: 'load', description: '', source: 'load' } },
    result,
    ...(error === undefined ? {} : { error }),
    totalS: 42,
    slos,
  }) as unknown as LabReport;

test('every SLO is one testcase; a failed one carries its figure and threshold', () => {
  const r = report([slo('Mutating p99', 0.2, 1), slo('Pod startup p99', 7.5, 5), slo('Cluster list p99', null, 30)]);
  const xml = junitXml(r);
  assert.match(xml, /<testsuite name="kscale SLOs" tests="3" failures="2" errors="0"/);
  assert.equal(xml.match(/<testcase /g)!.length, 3);
  assert.match(
    xml,
    /name="Pod startup p99" time="0"><failure message="7.5 s \(threshold &lt;= 5 s\)" type="ThresholdExceeded">/,
  );
  assert.match(xml, /name="Cluster list p99" time="0"><failure message="not measured/);
  assert.match(xml, /detail of Mutating p99 &lt;&amp;&gt;/);
  assert.deepEqual(
    failedSlos(r).map((s) => s.name),
    ['Pod startup p99', 'Cluster list p99'],
  );
});

test('targets beyond the SLOs get their own suite and do not gate the exit code', () => {
  const target = { ...slo('Pod creation rate', 50, 100, 'target'), comparison: '>=' as const, pass: false };
  const r = report([slo('Mutating p99', 0.2, 1), target]);
  assert.match(junitXml(r), /<testsuite name="kscale targets" tests="1" failures="1"/);
  assert.equal(upExitCode(r), 0);
});

test('kscale up exits 0 when every SLO passed, 1 when one failed, 3 when the run did not complete', () => {
  assert.equal(upExitCode(report([slo('a', 0.1, 1)])), 0);
  assert.equal(upExitCode(report([slo('a', 2, 1)])), 1);
  const broken = report([slo('a', 0.1, 1)], 'failed', 'phase create timed out');
  assert.equal(upExitCode(broken), 3);
  assert.equal(upExitCode(report([], 'interrupted')), 3);
  assert.match(
    junitXml(broken),
    /errors="1".*\n.*\n.*name="run completed".*<error message="run failed: phase create timed out"/,
  );
});
