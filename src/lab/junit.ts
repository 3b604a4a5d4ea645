/**
 * JUnit XML of a run, for CI: one testcase per SLO (ClusterLoader2 writes one
 * per step; kscale's unit of pass or fail is the SLO), in the suite "kscale
 * SLOs", and the issue's targets beyond the SLOs in a suite of their own.
 */
import type { LabReport } from './report.js';
import type { SloEntry } from './measure.js';

const xml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

/** The SLOs (kind 'slo') that did not pass; an empty list means the run may exit 0. */
export function failedSlos(report: LabReport): SloEntry[] {
  return report.slos.filter((s) => s.kind === 'slo' && !s.pass);
}

function testcase(s: SloEntry, classname: string): string {
  const figure = `${s.measured === null ? 'not measured' : `${s.measured} ${s.unit}`} (threshold ${s.comparison} ${s.threshold} ${s.unit})`;
  const body = s.pass
    ? `<system-out>${xml(`${figure}; ${s.detail}`)}</system-out>`
    : `<failure message="${xml(figure)}" type="${s.measured === null ? 'NotMeasured' : 'ThresholdExceeded'}">${xml(s.detail)}</failure>`;
  return `    <testcase classname="${xml(classname)}" name="${xml(s.name)}" time="0">${body}</testcase>\n`;
}

function suite(name: string, entries: SloEntry[], report: LabReport, classname: string, error?: string): string {
  const failures = entries.filter((s) => !s.pass).length;
  const errored = error === undefined ? 0 : 1;
  let out = `  <testsuite name="${xml(name)}" tests="${entries.length + errored}" failures="${failures}" errors="${errored}" time="${report.totalS}" timestamp="${xml(report.date)}">\n`;
  for (const s of entries) out += testcase(s, classname);
  if (error !== undefined)
    out += `    <testcase classname="${xml(classname)}" name="run completed" time="${report.totalS}"><error message="${xml(error)}" type="${xml(report.result)}"/></testcase>\n`;
  return `${out}  </testsuite>\n`;
}

/** The JUnit XML document of a report. A run that did not complete adds an errored "run completed" testcase. */
export function junitXml(report: LabReport): string {
  const classname = `kscale.${report.config.scenario.name}`;
  const incomplete =
    report.result === 'completed' ? undefined : `run ${report.result}: ${report.error ?? 'no error given'}`;
  const slos = report.slos.filter((s) => s.kind === 'slo');
  const targets = report.slos.filter((s) => s.kind !== 'slo');
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<testsuites name="kscale lab ${xml(report.config.scenario.name)}">\n` +
    suite('kscale SLOs', slos, report, classname, incomplete) +
    (targets.length === 0 ? '' : suite('kscale targets', targets, report, `${classname}.targets`)) +
    '</testsuites>\n'
  );
}
