/**
 * The watch cache benchmark: a real `kscale server` over loopback HTTP, once
 * with --watch-cache=true and once with false, in one run. Thousands of pod
 * watchers filtered by spec.nodeName (like kubelets) plus a few unfiltered
 * ones (like controllers), tens of thousands of ~2 KB pods, then pod status
 * churn at a fixed rate. Reports delivery rate and latency, server CPU and
 * memory, full-LIST times, storage reads and memory per cached object, with
 * the targets of issue 4. A script, not a timed test.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/watchcache/main.js [--quick]
 *     [--only true|false] [--storage-sync full|normal] [--watch-clients N]
 *     [--nodes N] [--pods N] [--rate N] [--churn-seconds N] [--cpu-prof-dir DIR]
 *     [--churn-prof-dir DIR]   (a server CPU profile of the churn window only, via the inspector)
 *     [--warmup-seconds N]     (status PATCHes at the churn rate with the watches open, not measured; default 2, 0 for none)
 *
 * The watchers live in separate client processes (one HTTP/1.1 connection per
 * watch), the writes come from a writer process; this one orchestrates.
 * Progress goes to stderr, the report to stdout. Servers, children and temp
 * dirs are removed on exit, on error and on SIGINT/SIGTERM.
 */
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { podManifest } from '../apiserver/pod.js';
import { Cleanup, runBenchmark } from '../apiserver/processes.js';
import { formatTable } from '../apiserver/report.js';
import { buildRows, notes } from './report.js';
import { runMode, type Config, type ModeResult } from './run_mode.js';

const started = performance.now();
const progress = (msg: string): void => {
  process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s] ${msg}\n`);
};

function parseArgs(argv: string[]): Config {
  const value = (flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const quick = argv.includes('--quick');
  const sync = value('--storage-sync') ?? 'full';
  if (sync !== 'full' && sync !== 'normal') throw new Error(`--storage-sync must be full or normal, not ${sync}`);
  const only = value('--only');
  if (only !== undefined && only !== 'true' && only !== 'false')
    throw new Error(`--only must be true or false, not ${only}`);
  const profDir = value('--cpu-prof-dir');
  const churnProfDir = value('--churn-prof-dir');
  const warmup = Number(value('--warmup-seconds') ?? 2);
  if (!Number.isFinite(warmup) || warmup < 0) throw new Error('--warmup-seconds must be a number ≥ 0');
  const num = (flag: string, dflt: number): number => {
    const v = Number(value(flag) ?? dflt);
    if (!Number.isFinite(v) || v <= 0) throw new Error(`${flag} must be a positive number`);
    return v;
  };
  return {
    quick,
    nodes: num('--nodes', quick ? 200 : 2_500),
    unfiltered: 10,
    pods: num('--pods', quick ? 5_000 : 75_000),
    createConnections: 32,
    createMaxMs: quick ? 30_000 : 900_000,
    rate: num('--rate', quick ? 200 : 1_000),
    churnMs: num('--churn-seconds', quick ? 5 : 30) * 1000,
    warmupMs: warmup * 1000,
    churnConnections: quick ? 20 : 100,
    drainMaxMs: quick ? 3_000 : 30_000,
    graceMs: quick ? 3_000 : 10_000,
    settleMs: quick ? 300 : 2_000,
    listReps: quick ? 2 : 5,
    listTimeoutMs: quick ? 20_000 : 120_000,
    listBudgetMs: quick ? 10_000 : 90_000,
    watchClients: num('--watch-clients', 1),
    storageSync: sync,
    modes: only === undefined ? [true, false] : [only === 'true'],
    cpuProfDir: profDir === undefined ? undefined : resolve(profDir),
    churnProfDir: churnProfDir === undefined ? undefined : resolve(churnProfDir),
  };
}

function header(cfg: Config): string[] {
  const cpu = cpus();
  return [
    `kscale watch cache benchmark${cfg.quick ? ' (--quick: small sizes, figures are not meaningful)' : ''}`,
    `date:     ${new Date().toISOString()}`,
    `machine:  ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown cpu'}, ${(totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, ${platform()} ${release()}`,
    `node:     ${process.version}; load average before the run ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} (other work on the machine skews the figures)`,
    `server:   kscale server --watch-cache true|false --storage-sync ${cfg.storageSync}, embedded SQLite store in a temp dir, 127.0.0.1, a fresh server per side${cfg.cpuProfDir === undefined ? '' : ', under --cpu-prof (slower)'}`,
    `watchers: ${cfg.nodes.toLocaleString('en-US')} with fieldSelector=spec.nodeName=node-<i> + ${cfg.unfiltered} unfiltered, all namespaces, allowWatchBookmarks, one HTTP/1.1 connection each, in ${cfg.watchClients} client process(es); opened after the pods are created`,
    `pods:     ${cfg.pods.toLocaleString('en-US')} (${JSON.stringify(podManifest('pod-00000')).length} B manifest, spec.nodeName set at create, ${cfg.createConnections} connections), then ${cfg.rate.toLocaleString('en-US')} status PATCHes/s (merge patch, open loop) for ${cfg.churnMs / 1000} s`,
    `warm-up:  ${cfg.warmupMs > 0 ? `${Math.round((cfg.rate * cfg.warmupMs) / 1000).toLocaleString('en-US')} status PATCHes at the same rate (other pods) with the watches open, not measured: the server's PATCH path and its fan-out to the watchers are cold after a create-only phase` : 'none (--warmup-seconds 0): the first seconds of churn run the PATCH path and the fan-out unoptimised'}`,
    `latency:  write → receipt counts from the scheduled send time written into status.message; ack → receipt from the write's answer (CLOCK_MONOTONIC, shared by the processes)`,
  ];
}

async function run(cfg: Config, cleanup: Cleanup): Promise<void> {
  console.log(header(cfg).join('\n'));
  const results: ModeResult[] = [];
  for (const watchCache of cfg.modes) results.push(await runMode(cfg, cleanup, watchCache, progress));
  const on = results.find((r) => r.watchCache);
  const off = results.find((r) => !r.watchCache);
  console.log('');
  console.log(formatTable(buildRows(cfg, on, off)));
  console.log('');
  for (const line of notes(cfg, results)) console.log(line);
  console.log(
    `load average after the run: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  if (cfg.cpuProfDir !== undefined)
    console.log(`server CPU profiles: in ${cfg.cpuProfDir}, named after the server pids above`);
  progress(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

await runBenchmark('watch cache benchmark', progress, (cleanup) => run(parseArgs(process.argv.slice(2)), cleanup));
