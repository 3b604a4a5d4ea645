/**
 * One lab run, start to end: bring the cluster up in order, wait for the
 * nodes, run the scenario's phases, measure throughout, write the report,
 * and shut everything down (unless asked to keep it running).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorCode, loadKubeconfig, RESOURCES, RESTClient } from '../client/index.js';
import { apiSeries, scrape, type ApiSnapshot } from './api_metrics.js';
import type { LabConfig } from './config.js';
import {
  controllerManagerSpec,
  detectCapabilities,
  etcdSpec,
  fleetProcessCount,
  clientCAFile,
  fleetSpecs,
  freePort,
  bootstrapKubeconfigPath,
  schedulerSpec,
  serverSpec,
  metricsKubeconfig,
  runPaths,
  type Capabilities,
  type RunPaths,
} from './components.js';
import { nodeJoinOf, writeBootstrapKubeconfig } from './node_join.js';
import { collectFleetReports, type FleetReport } from './fleet_report.js';
import { renderHtml } from './html.js';
import { NOISY_NAMESPACE, noisyNeighbourToken, writeTokenAuthFile, writeTokenKubeconfig } from './identities.js';
import { noisyNeighbourSpec, readNoisyNeighbourStats } from './noisy_neighbour.js';
import { killNodesPhase } from './node_failure.js';
import { LoadGenerator, quietPhase, type PhaseResult, type WorkloadMode } from './load.js';
import { PodTracker, type PodTimes } from './pod_tracker.js';
import { Progress } from './progress.js';
import { buildReport, gitCommit, machineNow, type ApiLatencySource, type LabReport } from './report.js';
import { Sampler } from './sampler.js';
import { kubeconfigScrapeTarget, startPrometheus, type RunningPrometheus } from './prometheus.js';
import { promSloReport, type PromSloReport } from './prom_slo.js';
import { planScenario } from './scenario.js';
import { Supervisor } from './supervisor.js';
import { untilAborted } from './until_aborted.js';
import { CHAOS_NAMESPACE, CHAOS_SCENARIOS, runChaos, type ChaosFault } from './chaos/index.js';
import { haControllerManagerSpec, haSchedulerSpec, isHa, leaderElectionNotes, startHaControlPlane } from './ha.js';

/** Picks how pods are made and placed from the capabilities; throws when an explicit choice cannot run. */
export function resolveMode(c: LabConfig, caps: Capabilities, notes: string[]): WorkloadMode {
  if (c.mode !== 'auto') {
    if (c.mode.binding === 'scheduler' && !caps.scheduler)
      throw new Error('binding=scheduler needs `kscale scheduler`, which this build does not have');
    if (c.mode.workloads === 'controllers' && !caps.workloadControllers)
      throw new Error(
        'workloads=controllers needs the workload controllers in `kscale controller-manager`, which this build does not have',
      );
    if (c.mode.workloads === 'controllers' && c.mode.binding !== 'scheduler')
      throw new Error('workloads=controllers needs binding=scheduler');
    return c.mode;
  }
  const binding = caps.scheduler ? 'scheduler' : 'direct';
  const workloads = caps.workloadControllers && caps.scheduler ? 'controllers' : 'pods';
  if (!caps.scheduler)
    notes.push(
      'this build has no `kscale scheduler`: the lab binds pods itself (spec.nodeName set at creation, round-robin over Ready nodes), so create→scheduled is only the create call and the watch delay, and scheduling throughput is not measured',
    );
  if (workloads === 'pods')
    notes.push(
      "the workload controllers are not in this build's controller-manager: the lab creates each Deployment's and Job's pods itself as bare pods (Jobs' pods do not complete); Services are created without endpoints controllers",
    );
  return { workloads, binding };
}

/** Pods Running per second between the first and last pod that started running in [fromMs, toMs]. */
function sustainedRunningRate(pods: Iterable<PodTimes>, fromMs: number, toMs: number): number | undefined {
  const t: number[] = [];
  for (const p of pods)
    if (p.runningAt !== undefined && p.runningAt >= fromMs && p.runningAt <= toMs) t.push(p.runningAt);
  if (t.length < 2) return undefined;
  t.sort((a, b) => a - b);
  return (t.length - 1) / ((t[t.length - 1]! - t[0]!) / 1000);
}

/** Outcome of runLab. */
export interface LabOutcome {
  report: LabReport;
  reportDir: string;
  kubeconfig: string;
}

/** Hooks for the caller (the command, an experiment). */
export interface LabHooks {
  progress?: Progress;
  /** Aborts the run (Ctrl-C). */
  signal?: AbortSignal;
  /** With keepRunning: resolves when the user wants the cluster stopped. */
  waitForStop?: (kubeconfig: string, serverUrl: string) => Promise<void>;
}

/** Runs the lab once; the report is written even when a phase fails or the run is interrupted. */
export async function runLab(c: LabConfig, hooks: LabHooks = {}): Promise<LabOutcome> {
  const progress = hooks.progress ?? new Progress(process.stderr);
  const notes: string[] = [];
  const machine = machineNow();
  const commit = gitCommit();
  const caps = detectCapabilities();
  const mode = resolveMode(c, caps, notes);
  const existing = c.existingCluster;
  const labNamespaces = new Set(
    existing === undefined ? [] : planScenario(c.scenario, c.nodes, c.podsPerNode).namespaces,
  );
  if (c.fleet.proxyMode !== 'off' && !caps.hollowProxy)
    throw new Error(
      `--proxy-mode ${c.fleet.proxyMode} needs \`kscale nodes --hollow-proxy\`, which this build does not have`,
    );
  mkdirSync(c.reportDir, { recursive: true });
  const dataDir = mkdtempSync(join(tmpdir(), 'kscale-lab-'));
  const paths: RunPaths = runPaths(c.reportDir, dataDir);
  const noisyLoad = c.noisyNeighbour;
  const noisyOn = noisyLoad.listsInFlight + noisyLoad.writesInFlight > 0;
  const noisyStatsFile = join(c.reportDir, 'noisy-neighbour.json');
  // Both need the secure port: on the plain one every client is system:masters, exempt under APF.
  let fleetToken: string | undefined;
  if (c.fleet.identity === 'node-group' || noisyOn) {
    paths.tokenAuthFile = join(dataDir, 'tokens.csv');
    fleetToken = writeTokenAuthFile(paths.tokenAuthFile);
  }
  const t0 = Date.now();
  const elapsed = (): number => (Date.now() - t0) / 1000;
  const supervisor = new Supervisor(join(c.reportDir, 'logs'));
  const abort = new AbortController();
  // Stop starting components once the run is aborted (Ctrl-C during start-up).
  const sup = {
    components: supervisor.components,
    start: async (spec: Parameters<Supervisor['start']>[0]) => {
      if (abort.signal.aborted) throw abort.signal.reason as Error;
      return supervisor.start(spec);
    },
    stop: () => supervisor.stop(),
    onUnexpectedExit: supervisor.onUnexpectedExit.bind(supervisor),
  };
  const onOuterAbort = (): void => abort.abort(new Error('interrupted'));
  hooks.signal?.addEventListener('abort', onOuterAbort, { once: true });
  let crash: Error | undefined;
  sup.onUnexpectedExit((comp, code, sig) => {
    crash = new Error(
      `${comp.spec.name} exited during the run (code ${code}, signal ${sig}): ${comp.stderr().slice(-2000)}`,
    );
    abort.abort(crash);
  });
  const phases: PhaseResult[] = [];
  let phase = 'start-up';
  let serverUrl = '';
  let sampler: Sampler | undefined;
  let prom: RunningPrometheus | undefined;
  let promSlos: PromSloReport | undefined;
  const promPorts =
    c.prometheus === true
      ? {
          cm: await freePort(),
          // One per scheduler: the HA run's leader-elected schedulers each serve their own.
          schedulers: await Promise.all(Array.from({ length: Math.max(1, c.ha.schedulers) }, () => freePort())),
          fleets: await Promise.all(Array.from({ length: fleetProcessCount(c) }, () => freePort())),
        }
      : undefined;
  let apiLatencySource: ApiLatencySource = 'server-metrics';
  let tracker: PodTracker | undefined;
  let gen: LoadGenerator | undefined;
  let target = 0;
  let createRate: number | undefined;
  let result: LabReport['result'] = 'completed';
  let error: string | undefined;
  let ticker: NodeJS.Timeout | undefined;
  let chaos: Promise<ChaosFault[]> | undefined;
  let faults: ChaosFault[] | undefined;
  try {
    progress.log(
      `kscale lab: ${c.nodes} nodes × ${c.podsPerNode} pods, scenario ${c.scenario.name}, workloads=${mode.workloads}, binding=${mode.binding}; report in ${c.reportDir}`,
    );
    const startServer = async (): Promise<void> => {
      let server = c;
      if (c.server.labEtcd !== 'none') {
        const main = await etcdSpec('etcd', dataDir);
        await sup.start(main.spec);
        let overrides: string | undefined;
        if (c.server.labEtcd === 'main+events') {
          const events = await etcdSpec('etcd-events', dataDir);
          await sup.start(events.spec);
          overrides = `/events#${events.url}`;
        }
        server = {
          ...c,
          server: {
            ...c.server,
            etcdServers: main.url,
            ...(overrides !== undefined ? { etcdServersOverrides: overrides } : {}),
          },
        };
        progress.log(`etcd ready (${c.server.labEtcd})`);
      }
      // Under chaos the server comes back on the same port, so every component's kubeconfig stays right.
      if (c.chaos !== undefined)
        server = {
          ...server,
          server: {
            ...server.server,
            // The port the components use: the secure one, or on --insecure the plain one.
            extraArgs: [
              ...server.server.extraArgs,
              c.server.insecure ? '--insecure-port' : '--secure-port',
              String(await freePort()),
            ],
          },
        };
      await sup.start(serverSpec(server, paths, (u) => (serverUrl = u)));
    };
    const ha = isHa(c.ha);
    if (existing !== undefined) {
      // kscale load: the cluster is someone else's; the lab only loads it and measures.
      paths.kubeconfig = existing.kubeconfig;
      serverUrl = loadKubeconfig({ path: existing.kubeconfig }).host;
      progress.log(`loading the existing cluster at ${serverUrl}: nothing is started`);
    } else {
      if (ha) serverUrl = await startHaControlPlane(c, paths, c.ha, sup.start, (l) => progress.log(l));
      else await startServer();
      progress.log(`server ready at ${serverUrl}`);
      if (c.fleet.identity === 'node-group' && fleetToken !== undefined) {
        paths.fleetKubeconfig = join(c.reportDir, 'fleet.kubeconfig');
        writeTokenKubeconfig(paths.kubeconfig, paths.fleetKubeconfig, fleetToken);
      }
      // --prometheus: the controller-manager and scheduler endpoints on ports the scrape config names.
      const schedulerWithPort = (i: number): LabConfig['scheduler'] =>
        promPorts === undefined
          ? c.scheduler
          : {
              ...c.scheduler,
              extraArgs: [
                ...c.scheduler.extraArgs,
                '--secure-port',
                String(promPorts.schedulers[i]),
                '--client-ca-file',
                clientCAFile(paths),
              ],
            };
      const withPorts: LabConfig =
        promPorts === undefined
          ? c
          : {
              ...c,
              controllerManager: {
                ...c.controllerManager,
                // Its secure port authenticates Prometheus's client certificate (the lab's metrics identity).
                extraArgs: [
                  ...c.controllerManager.extraArgs,
                  '--secure-port',
                  String(promPorts.cm),
                  '--client-ca-file',
                  clientCAFile(paths),
                ],
              },
              scheduler: schedulerWithPort(0),
            };
      if (ha) {
        // The first leads; the standbys campaign (not withPorts: one fixed port cannot serve several).
        await sup.start(haControllerManagerSpec(withPorts, paths, 0));
        for (let i = 1; i < c.ha.controllerManagers; i++) await sup.start(haControllerManagerSpec(c, paths, i));
        progress.log(`${c.ha.controllerManagers} leader-elected controller-managers ready`);
      } else {
        await sup.start(controllerManagerSpec(withPorts, paths));
        progress.log('controller-manager ready');
      }
      if (mode.binding === 'scheduler' && ha) {
        for (let i = 0; i < c.ha.schedulers; i++)
          await sup.start(haSchedulerSpec({ ...c, scheduler: schedulerWithPort(i) }, paths, i));
        progress.log(`${c.ha.schedulers} leader-elected schedulers ready`);
      } else if (mode.binding === 'scheduler') {
        await sup.start(schedulerSpec(withPorts, paths));
        progress.log('scheduler ready');
      }
    }
    const client = new RESTClient({
      ...loadKubeconfig({ path: paths.kubeconfig }),
      qps: 0,
      burst: 1,
      userAgent: 'kscale-lab',
    });
    // In an existing cluster other pods are not the lab's to time or count; chaos's probe pods are timed by chaos.
    tracker = new PodTracker(client, Date.now, (ns) =>
      existing === undefined ? ns !== CHAOS_NAMESPACE : labNamespaces.has(ns),
    );
    await tracker.start();
    // Before the lab's sampler, so Prometheus has seen every series before the lab's range starts.
    if (promPorts !== undefined) {
      prom = await startPrometheus(
        join(dataDir, 'prometheus'),
        [
          kubeconfigScrapeTarget('apiserver', serverUrl, metricsKubeconfig(c, paths), join(dataDir, 'prometheus')),
          // Its serving certificate is self-signed, so unverified (insecure_skip_verify), as upstream's is scraped.
          kubeconfigScrapeTarget(
            'kube-controller-manager',
            `https://127.0.0.1:${promPorts.cm}`,
            metricsKubeconfig(c, paths),
            join(dataDir, 'prometheus'),
            { verifyServer: false },
          ),
          ...(mode.binding === 'scheduler'
            ? promPorts.schedulers
                .slice(0, ha ? c.ha.schedulers : 1)
                .map((port) =>
                  kubeconfigScrapeTarget(
                    'kube-scheduler',
                    `https://127.0.0.1:${port}`,
                    metricsKubeconfig(c, paths),
                    join(dataDir, 'prometheus'),
                    { verifyServer: false },
                  ),
                )
            : []),
          // The fleets' kubelet metrics (one job, a target per fleet process), up once they start below.
          ...(existing === undefined
            ? promPorts.fleets.map((port) =>
                kubeconfigScrapeTarget(
                  'kubelet',
                  `https://127.0.0.1:${port}`,
                  metricsKubeconfig(c, paths),
                  join(dataDir, 'prometheus'),
                  { verifyServer: false },
                ),
              )
            : []),
        ],
        Math.max(1, Math.round(c.scrapeIntervalMs / 1000)),
      );
      progress.log(`prometheus ready at ${prom.url}`);
      await new Promise((r) => setTimeout(r, c.scrapeIntervalMs));
    }
    const metricsClient = new RESTClient({
      ...loadKubeconfig({ path: existing?.kubeconfig ?? metricsKubeconfig(c, paths) }),
      qps: 0,
      burst: 1,
    });
    if (existing !== undefined && !(await serverMetricsReadable(metricsClient, notes))) apiLatencySource = 'client';
    sampler = new Sampler(
      apiLatencySource === 'client' ? undefined : metricsClient,
      () => [{ name: 'lab', pid: process.pid }, ...sup.components.map((x) => ({ name: x.spec.name, pid: x.pid }))],
      t0,
      c.scrapeIntervalMs,
    );
    sampler.start();
    const tr = tracker;
    const smp = sampler;
    const plan = planScenario(c.scenario, c.nodes, c.podsPerNode);
    target = plan.pods;
    const recent: [number, number][] = [];
    const draw = (): void => {
      const snaps = smp.snapshots;
      const a = snaps[snaps.length - 2];
      const b = snaps[snaps.length - 1];
      let qps = 0;
      let p99 = NaN;
      if (a !== undefined && b !== undefined && b.t > a.t) {
        qps = (b.requests - a.requests) / (b.t - a.t);
        p99 = lastP99(a, b);
      }
      const cnt = tr.counts;
      // ETA from the rate of the last 10 s, not the asked-for rate: a slow cluster gets an honest estimate.
      const now = Date.now();
      recent.push([now, phase === 'nodes' ? cnt.nodesReady : cnt.podsSeen]);
      while (recent.length > 1 && now - recent[0]![0] > 10_000) recent.shift();
      const [t1, v1] = recent[0]!;
      const rate = now > t1 ? ((recent[recent.length - 1]![1] - v1) * 1000) / (now - t1) : 0;
      const left =
        phase === 'nodes' ? c.nodes - cnt.nodesReady : phase === 'create' ? target - cnt.podsSeen : undefined;
      const eta = left !== undefined && rate > 0 ? left / rate : undefined;
      progress.update({
        phase,
        elapsedS: elapsed(),
        nodes: { ready: cnt.nodesReady, total: c.nodes },
        pods: {
          seen: cnt.podsSeen,
          scheduled: cnt.podsScheduled,
          running: cnt.podsRunning,
          live: cnt.podsLive,
          target,
        },
        qps,
        p99S: p99,
        ...(eta !== undefined ? { etaS: Math.max(0, eta) } : {}),
      });
    };
    ticker = setInterval(draw, 1000);
    // Against an existing cluster no fleet starts, so nothing joins.
    if (existing === undefined && nodeJoinOf(c) === 'csr')
      await writeBootstrapKubeconfig(client, paths.kubeconfig, bootstrapKubeconfigPath(paths));
    if (existing === undefined) {
      for (const spec of fleetSpecs(c, paths, promPorts?.fleets)) await sup.start(spec);
      progress.log(
        `fleet started: ${c.nodes} hollow nodes joining at ${c.fleet.joinRate}/s in ${fleetProcessCount(c)} fleet process(es)`,
      );
    }
    // Nodes: wait until every node is Ready.
    phase = 'nodes';
    const nodesStart = elapsed();
    const nodesDeadline = Date.now() + (c.nodes / Math.max(1, c.fleet.joinRate)) * 3000 + 120_000;
    while (tr.counts.nodesReady < c.nodes) {
      if (abort.signal.aborted) throw abort.signal.reason as Error;
      if (Date.now() > nodesDeadline) throw new Error(`only ${tr.counts.nodesReady} of ${c.nodes} nodes Ready in time`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const nodesEnd = elapsed();
    phases.push({
      ...quietPhase('nodes', 'hold', nodesStart, nodesEnd),
      note: `${c.nodes} nodes Ready (${(c.nodes / Math.max(0.001, nodesEnd - nodesStart)).toFixed(1)} nodes/s)`,
    });
    progress.log(`${c.nodes} nodes Ready in ${(nodesEnd - nodesStart).toFixed(1)} s`);
    let seed = c.seed >>> 0 || 1;
    const random = (): number => {
      // xorshift32: the same picks for the same seed, so two runs of an experiment scale the same Deployments.
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 2 ** 32;
    };
    gen = new LoadGenerator({ client, tracker: tr, mode, podRate: c.podRate, elapsed, signal: abort.signal, random });
    if (noisyOn) {
      const file = join(c.reportDir, 'noisy-neighbour.kubeconfig');
      writeTokenKubeconfig(paths.kubeconfig, file, await noisyNeighbourToken(client));
      await sup.start(noisyNeighbourSpec(file, NOISY_NAMESPACE, noisyLoad, noisyStatsFile));
      progress.log(
        `noisy neighbour started: ${noisyLoad.listsInFlight} pod LISTs and ${noisyLoad.writesInFlight} ConfigMap writes in flight`,
      );
    }
    if (plan.workloads.length > 0) await gen.createNamespaces(plan.namespaces);
    if (c.chaos !== undefined) {
      const scenario = CHAOS_SCENARIOS.get(c.chaos);
      if (scenario === undefined)
        throw new Error(`--chaos ${c.chaos}: no such scenario (${[...CHAOS_SCENARIOS.keys()].join(', ')})`);
      progress.log(`chaos: ${scenario.description}`);
      chaos = runChaos({
        scenario,
        supervisor,
        client,
        // The break-glass identity reaches each server directly, for the read-back and the LIST counts.
        kubeconfig: metricsKubeconfig(c, paths),
        nodes: c.nodes,
        elapsed,
        random,
        signal: abort.signal,
        ...(c.chaosGapMs === undefined ? {} : { minGapMs: c.chaosGapMs }),
      });
    }
    for (const p of c.scenario.phases) {
      phase = p.name;
      const timeout =
        c.phaseTimeoutMs > 0
          ? c.phaseTimeoutMs
          : (plan.pods / Math.max(1, c.podRate)) * 3000 + 180_000 + (p.type === 'hold' ? p.durationMs : 0);
      const startedAt = Date.now();
      // A crash or Ctrl-C ends the phase at once, even with calls of the generator still waiting on a server
      // that died mid-response (a 2,500-node run whose server aborted hung here for good).
      const res = await untilAborted(
        p.type === 'kill-nodes'
          ? killNodesPhase(
              p.name,
              p.fraction,
              p.timeoutMs,
              paths.fleetKubeconfig ?? paths.kubeconfig,
              tr,
              elapsed,
              abort.signal,
            )
          : gen.run(p, plan.workloads, timeout),
        abort.signal,
      );
      phases.push(res);
      if (p.type === 'create') createRate = sustainedRunningRate(tr.pods.values(), startedAt, Date.now());
      progress.log(
        `phase ${p.name}: ${res.durationS.toFixed(1)} s, ${res.podsRequested} pods${res.completed ? '' : `: ${res.note ?? 'did not complete'}`}`,
      );
      if (!res.completed) {
        result = 'failed';
        error = `phase ${p.name} did not complete: ${res.note ?? ''}`;
        break;
      }
    }
    if (chaos !== undefined) {
      phase = 'chaos';
      faults = await chaos;
      for (const f of faults)
        progress.log(
          `chaos: ${f.component} killed at ${f.killedAtS.toFixed(0)} s, back in ${f.restartS.toFixed(1)} s, recovered in ${f.recoverS?.toFixed(1) ?? 'never'} s, every node Lease renewed in ${f.leasesRenewedS?.toFixed(1) ?? 'never'} s, writes unavailable ${f.writeUnavailableS?.toFixed(2) ?? 'until the end'} s, ${f.writesLost}/${f.writesChecked} acknowledged writes lost or hidden on ${f.serversChecked} server(s)${chaosExtras(f)}`,
        );
    }
    phase = 'settle';
    await new Promise((r) => setTimeout(r, c.settleS * 1000));
  } catch (err) {
    result = crash !== undefined || !abort.signal.aborted ? 'failed' : 'interrupted';
    error = (crash ?? (err as Error)).message;
    progress.log(`lab ${result}: ${error}`);
  } finally {
    if (ticker !== undefined) clearInterval(ticker);
    progress.clear();
  }
  if (sampler !== undefined) await sampler.stop();
  if (prom !== undefined) {
    // One more Prometheus scrape after the lab's last, so both cover the same range.
    await new Promise((r) => setTimeout(r, c.scrapeIntervalMs + 500));
    promSlos = await promSloReport(
      prom,
      sampler?.snapshots ?? [],
      (t0 + (sampler?.snapshots.at(-1)?.t ?? 0) * 1000) / 1000,
    ).catch((err: unknown) => {
      notes.push(`--prometheus: the PromQL SLIs could not be read: ${(err as Error).message}`);
      return undefined;
    });
    await prom.stop();
  }
  const fleets: FleetReport[] =
    existing !== undefined ? [] : await collectFleetReports(paths.fleetKubeconfig ?? paths.kubeconfig).catch(() => []);
  machine.loadAverageEnd = loadavg();
  if (isHa(c.ha) && existing === undefined)
    notes.push(
      ...leaderElectionNotes(
        join(c.reportDir, 'logs'),
        supervisor.components.map((x) => x.spec.name),
      ),
    );
  const report = buildReport({
    config: c,
    mode,
    capabilities: caps,
    notes,
    result,
    ...(error !== undefined ? { error } : {}),
    totalS: elapsed(),
    phases,
    snapshots: sampler?.snapshots ?? [],
    apiLatencySource,
    scrapeErrors: sampler?.scrapeErrors ?? 0,
    pods: tracker?.pods.values() ?? [],
    scheduledTimes: mode.binding === 'scheduler' ? (tracker?.scheduledTimes ?? []) : [],
    labWatchEvents: tracker?.counts.watchEvents ?? 0,
    client: gen?.latencies ?? new Map(),
    procs: sampler === undefined ? [] : [...sampler.procs.series.values()],
    machine,
    commit,
    createRate,
    fleets,
    startedAtMs: t0,
    nodesTurnedNotReady: tracker?.counts.nodesTurnedNotReady ?? 0,
    ...(noisyOn ? { noisyNeighbour: readNoisyNeighbourStats(noisyStatsFile) } : {}),
  });
  if (faults !== undefined) report.chaos = faults;
  const objects = gen?.objectCounts() ?? {};
  if (Object.keys(objects).length > 0) report.objects = objects;
  if (promSlos !== undefined) report.prometheus = promSlos;
  writeFileSync(join(c.reportDir, 'report.json'), `${JSON.stringify(report, null, 1)}\n`);
  writeFileSync(join(c.reportDir, 'report.html'), renderHtml(report));
  try {
    if (c.keepRunning && result === 'completed' && hooks.waitForStop !== undefined)
      await hooks.waitForStop(paths.kubeconfig, serverUrl);
  } finally {
    abort.abort(new Error('stopping'));
    await tracker?.stop();
    if (existing !== undefined && gen !== undefined)
      await deleteLabNamespaces(existing.kubeconfig, [...labNamespaces], (l) => progress.log(l));
    await sup.stop();
    rmSync(dataDir, { recursive: true, force: true });
    hooks.signal?.removeEventListener('abort', onOuterAbort);
  }
  return { report, reportDir: c.reportDir, kubeconfig: paths.kubeconfig };
}

/** The fault's figures beyond every fault's: LISTs after a server kill, a Lease takeover, probe pods bound. */
function chaosExtras(f: ChaosFault): string {
  const s = (v: number | null | undefined): string => (v === null || v === undefined ? 'never' : v.toFixed(1));
  return [
    f.listsAfterKill === undefined
      ? ''
      : `, ${f.listsAfterKill} LISTs after the kill (${f.watchesOnKilledServer ?? '?'} watches on it)`,
    f.lease === undefined ? '' : `, ${f.lease} Lease taken over in ${s(f.takeoverS)} s`,
    f.probePods === undefined
      ? ''
      : `, ${f.probePods} pods created after the kill bound in ${s(f.podsScheduledAfterS)} s`,
  ].join('');
}

/** The mutating-call p99 between two scrapes, for the progress display. */
function lastP99(a: ApiSnapshot, b: ApiSnapshot): number {
  return apiSeries([a, b]).p99.mutating[0] ?? NaN;
}

/**
 * Whether the lab may read the existing cluster's /metrics (upstream gives it to system:monitoring and cluster
 * admins); when it may not, the API SLIs are measured client-side and the report's notes say so.
 */
async function serverMetricsReadable(client: RESTClient, notes: string[]): Promise<boolean> {
  try {
    await scrape(client, AbortSignal.timeout(10_000));
    notes.push("the API latency SLIs come from the server's /metrics (apiserver_request_sli_duration_seconds)");
    return true;
  } catch (err) {
    const code = errorCode(err);
    notes.push(
      `the server's /metrics could not be read (${code === 0 ? (err as Error).message : `HTTP ${code}`}): the API latency SLIs are measured client-side, from the lab's own timings of its calls (the network and the client included, over the whole run rather than 5-minute windows)`,
    );
    return false;
  }
}

/** Deletes the namespaces the lab made in an existing cluster (ClusterLoader2 cleans up after itself too). */
async function deleteLabNamespaces(kubeconfig: string, namespaces: string[], log: (l: string) => void): Promise<void> {
  const client = new RESTClient({ ...loadKubeconfig({ path: kubeconfig }), qps: 0, burst: 1 });
  for (const ns of namespaces)
    await client
      .resource(RESOURCES.namespaces)
      .delete(ns)
      .catch((err: unknown) => {
        if (errorCode(err) !== 404) log(`namespace ${ns} was not deleted: ${(err as Error).message}`);
      });
}
