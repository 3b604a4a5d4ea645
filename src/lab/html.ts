/**
 * report.html of one run: the SLO table, phases, the object mix per kind and phase, pod startup breakdown, and
 * charts of latency CDFs, QPS and p99 over time with the phases marked,
 * pod startup CDF, scheduling, storage and watch rates, and per-process CPU
 * and memory.
 */
import { fleetLabel } from './fleet_report.js';
import { flowControlHtml } from './flowcontrol_html.js';
import { esc, mergeX, renderPage, type Section } from './html_page.js';
import type { LabReport } from './report.js';

const n = (v: number | null | undefined, d = 3): string =>
  v === null || v === undefined || !Number.isFinite(v) ? '-' : v.toFixed(d);

/** The SLO table of a report. */
export function sloTable(r: LabReport): string {
  const rows = r.slos
    .map(
      (s) =>
        `<tr><td>${esc(s.name)}</td><td>${esc(s.kind)}</td><td>${n(s.measured)} ${esc(s.unit)}</td><td>${esc(s.comparison)} ${s.threshold}</td><td class="${s.pass ? 'pass' : 'fail'}">${s.pass ? 'PASS' : 'FAIL'}</td><td>${esc(s.detail)}</td></tr>`,
    )
    .join('');
  return `<table><tr><th>SLO / target</th><th>kind</th><th>measured</th><th>threshold</th><th>result</th><th>detail</th></tr>${rows}</table>`;
}

function phaseTable(r: LabReport): string {
  const rows = r.phases
    .map(
      (p) =>
        `<tr><td>${esc(p.name)}</td><td>${n(p.start, 1)}</td><td>${n(p.durationS, 1)}</td><td>${p.podsRequested}</td><td>${n(p.issueRatePerSec, 1)}</td><td>${n(p.achievedPodsPerSec, 1)}</td><td>${p.calls}</td><td>${p.errors}</td><td>${p.completed ? 'yes' : 'no'}</td><td>${esc(p.note ?? '')}</td></tr>`,
    )
    .join('');
  return `<table><tr><th>phase</th><th>start (s)</th><th>time (s)</th><th>pods</th><th>issued/s</th><th>running/s</th><th>calls</th><th>errors</th><th>done</th><th>note</th></tr>${rows}</table>`;
}

/**
 * The object mix per kind: created, peak, most ready at once and deleted over the run, then per phase the seconds
 * until the kind reached the phase's target and how many of its objects the lab's own calls touched (created,
 * scaled, updated or deleted). Empty when the run had no objects besides pods.
 */
export function objectsTable(r: Pick<LabReport, 'objects' | 'phases'>): string {
  const kinds = Object.keys(r.objects ?? {});
  if (kinds.length === 0) return '';
  const phases = r.phases.filter((p) => p.objects !== undefined);
  const cell = (kind: string, p: (typeof phases)[number]): string => {
    const k = p.objects![kind];
    if (k === undefined) return '<td>-</td>';
    const t = k.readyS === undefined ? 'not reached' : `${n(k.readyS, 1)} s`;
    return `<td>${t}${k.changed > 0 ? ` (${k.changed} changed)` : ''}, want ${k.want}</td>`;
  };
  const row = (kind: string): string => {
    const o = r.objects?.[kind];
    const counts =
      o === undefined
        ? '<td>-</td><td>-</td><td>-</td><td>-</td>'
        : `<td>${o.created}</td><td>${o.peak}</td><td>${o.ready}</td><td>${o.deleted}</td>`;
    return `<tr><td>${esc(kind)}</td>${counts}${phases.map((p) => cell(kind, p)).join('')}</tr>`;
  };
  const head = phases.map((p) => `<th>${esc(p.name)}</th>`).join('');
  const pods = phases.some((p) => p.objects!.Pod !== undefined) ? row('Pod') : '';
  return `<p>Each kind as the lab's LISTs saw it (pods as its watch saw them): objects created, the most at once, the most ready at once, and deleted; then per phase the time from the phase's start until the kind reached the phase's target, the objects of the kind the lab's own calls touched, and the target.</p>
<table><tr><th>kind</th><th>created</th><th>peak</th><th>ready</th><th>deleted</th>${head}</tr>${kinds.map(row).join('')}${pods}</table>`;
}

function startupBreakdown(r: LabReport): string {
  const ps = r.podStartup;
  const parts: [string, number, number, string][] = [
    ['create → scheduled', ps.createToScheduled.p50, ps.createToScheduled.p99, '#1f77b4'],
    [
      'scheduled → kubelet, status write, watch',
      ps.scheduledToKubeletAndWatch.p50,
      ps.scheduledToKubeletAndWatch.p99,
      '#ff7f0e',
    ],
    ['simulated container start (fixed)', ps.simulatedStartMs, ps.simulatedStartMs, '#aaa'],
  ];
  const scale = 600 / Math.max(1, ps.total.p99, ps.total.p50);
  const barOf = (i: 1 | 2): string =>
    parts
      .map(
        (p) =>
          `<span class="bar" title="${esc(p[0])}: ${n(p[i], 0)} ms" style="width:${Math.max(0, p[i] * scale).toFixed(1)}px;background:${p[3]}"></span>`,
      )
      .join('');
  const legend = parts
    .map((p) => `<span class="bar" style="width:12px;background:${p[3]}"></span> ${esc(p[0])}`)
    .join(' &nbsp; ');
  const rows = parts.map((p) => `<tr><td>${esc(p[0])}</td><td>${n(p[1], 0)}</td><td>${n(p[2], 0)}</td></tr>`).join('');
  return `<p>Pods: ${ps.pods}. Created is taken from ${esc(ps.createdFrom)}.</p>
<table><tr><th>part</th><th>p50 (ms)</th><th>p99 (ms)</th></tr>${rows}
<tr><td><b>total (created → Running watched)</b></td><td>${n(ps.total.p50, 0)}</td><td>${n(ps.total.p99, 0)}</td></tr>
<tr><td><b>control plane share (total − simulated start)</b></td><td>${n(ps.controlPlane.p50, 0)}</td><td>${n(ps.controlPlane.p99, 0)}</td></tr></table>
<p>p50 ${barOf(1)}<br>p99 ${barOf(2)}<br><small>${legend} (parts' percentiles are taken separately, so they need not add up)</small></p>
${fleetTable(r)}`;
}

/** The fleet's own share of "scheduled → kubelet, status write, watch", per fleet process. */
function fleetTable(r: LabReport): string {
  const rows = (r.fleets ?? [])
    .map((f) => {
      const s = f.stats?.podStart;
      if (s === undefined)
        return `<tr><td>${esc(fleetLabel(f))}</td><td colspan="6">${esc(f.error ?? 'not reported')}</td></tr>`;
      return `<tr><td>${esc(fleetLabel(f))}</td><td>${s.lateness.count}</td><td>${n(s.lateness.p50, 0)} / ${n(s.lateness.p99, 0)}</td><td>${n(s.statusPatch.p50, 0)} / ${n(s.statusPatch.p99, 0)} / ${n(s.statusPatch.max, 0)}</td><td>${n(s.eventLoopDelay.p99, 0)} / ${n(s.eventLoopDelay.max, 0)}</td></tr>`;
    })
    .join('');
  if (rows === '') return '';
  return `<p>The hollow kubelets' own share, per fleet process (ms): how late each pod's simulated start ran, its Running status PATCH as the fleet's client saw it (including the wait for a shared socket), and the process's event loop delay.</p>
<table><tr><th>fleet</th><th>pods started</th><th>start lateness p50 / p99</th><th>status PATCH p50 / p99 / max</th><th>event loop delay p99 / max</th></tr>${rows}</table>`;
}

function latencyTable(r: LabReport): string {
  const rows = r.api.latency
    .slice(0, 40)
    .map(
      (e) =>
        `<tr><td>${esc(e.verb)} ${esc(e.resource)}${e.subresource === '' ? '' : `/${esc(e.subresource)}`}</td><td>${esc(e.scope)}</td><td>${esc(e.sli ?? '-')}</td><td>${e.count}</td><td>${n(e.p50 * 1000, 1)}</td><td>${n(e.p90 * 1000, 1)}</td><td>${n(e.p99 * 1000, 1)}</td></tr>`,
    )
    .join('');
  return `<table><tr><th>call</th><th>scope</th><th>SLI</th><th>count</th><th>p50 (ms)</th><th>p90 (ms)</th><th>p99 (ms)</th></tr>${rows}</table>`;
}

function promSloTable(p: NonNullable<LabReport['prometheus']>): string {
  const rows = p.rows
    .slice(0, 40)
    .map(
      (e) =>
        `<tr><td>${esc(e.verb)} ${esc(e.resource)}${e.subresource === '' ? '' : `/${esc(e.subresource)}`}</td><td>${esc(e.scope)}</td><td>${e.count}</td><td>${n(e.lab * 1000, 1)}</td><td>${e.promql === null ? '-' : n(e.promql * 1000, 1)}</td><td>${!e.checked ? 'not checked (few calls PromQL can count)' : e.agree ? 'agree' : 'DIFFER'}</td></tr>`,
    )
    .join('');
  return `<p>ClusterLoader2's query over ${p.rangeS} s: <code>${esc(p.query)}</code>. Check (within 5% or one bucket, SLIs with at least 100 calls): <b>${p.agree ? 'pass' : 'fail'}</b>.</p><table><tr><th>call</th><th>scope</th><th>count</th><th>lab p99 (ms)</th><th>PromQL p99 (ms)</th><th>check</th></tr>${rows}</table>`;
}

function processTable(r: LabReport): string {
  const rows = r.processes
    .map(
      (p) =>
        `<tr><td>${esc(p.name)}</td><td>${p.pid}</td><td>${n(p.peakRssMiB, 0)}</td><td>${n(p.totalCpuSeconds, 1)}</td><td>${n(p.avgCores, 2)}</td></tr>`,
    )
    .join('');
  return `<table><tr><th>process</th><th>pid</th><th>peak RSS (MiB)</th><th>CPU (s)</th><th>avg cores</th></tr>${rows}</table>`;
}

/** The phases as chart markers. */
export function phaseMarks(r: LabReport): { name: string; t: number }[] {
  return r.phases.map((p) => ({ name: p.name, t: p.start }));
}

/** Renders report.html. */
export function renderHtml(r: LabReport): string {
  const c = r.config;
  const marks = phaseMarks(r);
  const s = r.api.series;
  const cdfClasses = Object.entries(r.api.cdf).filter(([, v]) => v.le.length > 0);
  const cdfX = cdfClasses[0]?.[1].le ?? [];
  const cpu = mergeX(r.processes.map((p) => ({ label: p.name, x: p.t.map((t) => Math.round(t)), y: p.cpuCores })));
  const rss = mergeX(r.processes.map((p) => ({ label: p.name, x: p.t.map((t) => Math.round(t)), y: p.rssMiB })));
  const sections: Section[] = [
    {
      html: `<p>${c.nodes} nodes × ${c.podsPerNode} pods per node, scenario <b>${esc(c.scenario.name)}</b>, pod rate ${c.podRate}/s, workloads=${esc(c.mode.workloads)}, binding=${esc(c.mode.binding)}. Result: <b>${esc(r.result)}</b>${r.error === undefined ? '' : ` (${esc(r.error)})`} in ${n(r.totalS, 0)} s. ${esc(r.date)}, commit ${esc(r.commit ?? '-')}, ${r.machine.cpus} CPUs, load average ${r.machine.loadAverageStart.map((x) => x.toFixed(2)).join(' ')} → ${r.machine.loadAverageEnd.map((x) => x.toFixed(2)).join(' ')}.</p>`,
    },
    ...r.notes.map((x) => ({ html: `<p class="lesson">${esc(x)}</p>` })),
    { html: '<h2>SLOs</h2>' + sloTable(r) },
    { html: '<h2>Phases</h2>' + phaseTable(r) },
    ...(r.objects === undefined ? [] : [{ html: '<h2>Objects</h2>' + objectsTable(r) }]),
    { html: '<h2>Pod startup</h2>' + startupBreakdown(r) },
    {
      chart: {
        title: 'Pod startup latency CDF (created → Running watched)',
        xLabel: 'ms',
        yLabel: 'fraction of pods',
        x: r.podStartup.cdfMs.x,
        series: [{ label: 'pods', values: r.podStartup.cdfMs.y }],
      },
    },
    { html: '<h2>API calls</h2>' },
    {
      chart: {
        title: 'API call latency CDF per SLI (apiserver_request_sli_duration_seconds buckets, whole run)',
        xLabel: 'seconds',
        yLabel: 'fraction of calls',
        x: cdfX,
        logX: true,
        series: cdfClasses.map(([k, v]) => ({ label: k, values: v.fraction })),
      },
    },
    {
      chart: {
        title: 'API requests per second',
        xLabel: 's',
        yLabel: 'req/s',
        x: s.t,
        phases: marks,
        series: [
          { label: 'requests/s', values: s.qps },
          { label: '429/s', values: s.tooManyPerSec },
        ],
      },
    },
    {
      chart: {
        title: 'p99 latency per scrape interval',
        xLabel: 's',
        yLabel: 'seconds',
        x: s.t,
        phases: marks,
        series: Object.entries(s.p99).map(([k, v]) => ({ label: k, values: v })),
      },
    },
    { html: latencyTable(r) },
    ...(r.prometheus === undefined
      ? []
      : [{ html: "<h2>API latency from Prometheus beside the lab's</h2>" + promSloTable(r.prometheus) }]),
    ...(r.flowControl === undefined ? [] : [{ html: '<h2>API Priority and Fairness</h2>' + flowControlHtml(r) }]),
    { html: '<h2>Storage, watches, scheduling</h2>' },
    {
      chart: {
        title: 'Storage operations and watch events dispatched per second',
        xLabel: 's',
        yLabel: 'per second',
        x: s.t,
        phases: marks,
        series: [
          { label: 'storage ops/s', values: s.storageOpsPerSec },
          { label: 'watch events/s', values: s.watchEventsPerSec },
        ],
      },
    },
    {
      chart: {
        title: 'Pods scheduled per second',
        xLabel: 's since first scheduling',
        yLabel: 'pods/s',
        x: r.scheduling.series.t,
        series: [{ label: 'scheduled/s', values: r.scheduling.series.perSec }],
      },
    },
    { html: '<h2>Processes</h2>' + processTable(r) },
    { chart: { title: 'CPU per process', xLabel: 's', yLabel: 'cores', x: cpu.x, phases: marks, series: cpu.series } },
    {
      chart: {
        title: 'Memory (RSS) per process',
        xLabel: 's',
        yLabel: 'MiB',
        x: rss.x,
        phases: marks,
        series: rss.series,
      },
    },
    { html: `<h2>Settings</h2><pre>${esc(JSON.stringify(r.config, null, 1))}</pre>` },
  ];
  return renderPage(`kscale lab: ${c.nodes} nodes, scenario ${c.scenario.name}`, sections);
}
