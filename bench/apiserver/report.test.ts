/** The report's ratio targets and the median of whole runs, on made-up phases. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRows, medianPhase, medianResults, ROW_LABELS, type Phase, type Results } from './report.js';

const phase = (perSec: number, p99?: number, errors = 0): Phase => ({
  ok: perSec,
  errors,
  statuses: errors > 0 ? { '200': perSec, '500': errors } : { '200': perSec },
  incomplete: 0,
  elapsedMs: 1000,
  perSec,
  cpuPercent: 50,
  serverCpuPercent: 90,
  ...(p99 !== undefined ? { latency: { p50: p99 / 4, p90: p99 / 2, p99, max: p99 * 2 } } : {}),
  rvs: [],
});

const results = (scale: number, p99: number): Results => ({
  connections: 64,
  bareGet: phase(20_000),
  barePut: phase(10_000),
  get: phase(10_000 * scale),
  create: phase(3_400 * scale),
  update: phase(3_600 * scale),
  getHalf: phase(5_000, 5),
  createHalf: phase(1_700, p99),
  updateHalf: phase(1_800, p99),
});

const row = (r: Results, label: string): string[] => buildRows(r).find((x) => x[0] === label)!;

test('writes are judged against 35% of bare PUT, GET against 50% of bare GET', () => {
  const r = results(1, 20);
  assert.match(row(r, ROW_LABELS[0])[4]!, /^PASS \(50% of bare\)/);
  assert.match(row(r, ROW_LABELS[1])[4]!, /^FAIL \(34% of bare PUT\)/);
  assert.match(row(r, ROW_LABELS[2])[4]!, /^PASS \(36% of bare PUT\)/);
  assert.equal(row(r, ROW_LABELS[1])[3], '≥ 35% of bare PUT');
  assert.match(row(r, ROW_LABELS[4])[4]!, /^PASS/);
  assert.match(row(results(1, 60), ROW_LABELS[5])[4]!, /^FAIL \(p99 60\.0 ms\)/);
});

test('the median of whole runs takes each figure from the middle run and sums errors', () => {
  const m = medianResults([results(1, 80), results(2, 10), results(0.5, 30)]);
  assert.equal(m.get!.perSec, 10_000);
  assert.equal(m.createHalf!.latency!.p99, 30, 'one slow run does not fail the p99 target');
  assert.match(row(m, ROW_LABELS[4])[4]!, /^PASS/);
  assert.equal(m.bareGetHalf, undefined, 'a phase no run measured stays absent');
  const e = medianPhase([phase(10, 1, 0), phase(20, 2, 3), phase(30, 3, 0)]);
  assert.equal(e.errors, 3);
  assert.equal(e.statuses['500'], 3);
  assert.equal(e.perSec, 20);
  assert.equal(medianPhase([phase(10), phase(20)]).perSec, 15);
});
