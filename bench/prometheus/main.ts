/**
 * The PromQL agreement figure of `kscale up --prometheus` (issue 28): runs the
 * lab with Debian's prometheus beside it, then prints, per API SLI, the lab's
 * own p99 and ClusterLoader2's PromQL p99 over the same range, and the summary:
 * how many checked SLIs (at least 100 calls) agree within 5% or one histogram
 * bucket, and the median and largest relative difference among them.
 *
 *   node dist/bench/prometheus/main.js [--nodes=100] [--scrape-interval=2s] [--runs=1] [-- more kscale up flags]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PromSloReport } from '../../src/lab/prom_slo.js';

const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const own = dash < 0 ? argv : argv.slice(0, dash);
const extra = dash < 0 ? [] : argv.slice(dash + 1);
const args = new Map(
  own.map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k!, v ?? 'true'];
  }),
);
const NODES = Number(args.get('nodes') ?? 100);
const INTERVAL = args.get('scrape-interval') ?? '2s';
const RUNS = Number(args.get('runs') ?? 1);
const seconds = (d: string): number => Number(d.replace(/s$/, ''));
const KSCALE = fileURLToPath(new URL('../../src/cmd/kscale.js', import.meta.url));

/** Runs `kscale up` once; resolves with its exit code. */
function up(reportDir: string): Promise<number> {
  const p = spawn(
    process.execPath,
    [
      KSCALE,
      'up',
      '--nodes',
      String(NODES),
      '--prometheus',
      '--scrape-interval',
      INTERVAL,
      '--report',
      reportDir,
      ...extra,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    p.once('error', reject);
    p.once('exit', (code) => resolve(code ?? 3));
  });
}

const ms = (s: number | null): string => (s === null ? '-' : (s * 1000).toFixed(1));
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const medians: number[] = [];
for (let run = 1; run <= RUNS; run++) {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-bench-prom-'));
  try {
    const code = await up(dir);
    // 0: every SLO passed; 1: some SLO failed, still a complete report with its PromQL figures.
    if (code !== 0 && code !== 1) throw new Error(`kscale up exited with ${code}`);
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as {
      prometheus?: PromSloReport;
      processes?: { name: string; totalCpuSeconds: number; avgCores: number }[];
    };
    const p = report.prometheus;
    if (p === undefined) throw new Error('report.json has no prometheus section');
    process.stdout.write(`run ${run}: kscale up --nodes ${NODES} --prometheus, range ${p.rangeS} s\n`);
    process.stdout.write(
      '  SLI                                   calls (PromQL-visible)   lab p99 ms  PromQL p99 ms  diff   agree\n',
    );
    const diffs: number[] = [];
    for (const r of p.rows) {
      const diff = r.promql === null ? NaN : Math.abs(r.lab - r.promql) / Math.max(r.lab, r.promql);
      if (r.checked && Number.isFinite(diff)) diffs.push(diff);
      const name = `${r.verb} ${r.resource}${r.subresource === '' ? '' : `/${r.subresource}`} ${r.scope}`;
      process.stdout.write(
        `  ${name.padEnd(36)} ${String(r.count).padStart(6)} (${String(r.visible ?? r.count).padStart(6)})` +
          ` ${ms(r.lab).padStart(19)} ${ms(r.promql).padStart(14)}` +
          ` ${Number.isFinite(diff) ? `${(diff * 100).toFixed(1)}%` : '-'}`.padStart(7) +
          `   ${r.checked ? (r.agree ? 'yes' : 'NO') : '(not checked)'}\n`,
      );
    }
    // For the scrape-cost figure: the server's CPU over the run and the lab's own scrapes of its /metrics.
    const server = report.processes?.find((x) => x.name === 'server');
    if (server !== undefined)
      process.stdout.write(
        `  server CPU over the run: ${server.totalCpuSeconds.toFixed(1)} s (${server.avgCores.toFixed(3)} cores on average); ` +
          `the lab scraped its /metrics about ${Math.round(p.rangeS / seconds(INTERVAL))} times over the ${p.rangeS} s range\n`,
      );
    const checked = p.rows.filter((r) => r.checked);
    const med = median(diffs);
    medians.push(med);
    process.stdout.write(
      `  checked SLIs (>= 100 calls PromQL can count): ${checked.length}, agreeing within 5% or one bucket: ${checked.filter((r) => r.agree).length}; ` +
        `relative difference median ${(med * 100).toFixed(1)}%, max ${(Math.max(...diffs) * 100).toFixed(1)}%: ${p.agree ? 'PASS' : 'FAIL'}\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
if (RUNS > 1)
  process.stdout.write(
    `median over ${RUNS} runs of the median relative difference: ${(median(medians) * 100).toFixed(1)}%\n`,
  );
