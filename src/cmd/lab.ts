/**
 * `kscale up` (the lab's main job: bring up a cluster, load it, report the
 * SLOs, shut it down) and `kscale lab` (experiments, and the lists of
 * scenarios and experiments).
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, resolve, join } from 'node:path';
import { asUsage, EXIT, messageOf, UsageError } from './exit.js';
import {
  defaultConfig,
  compareReports,
  EXPERIMENTS,
  failedSlos,
  junitXml,
  listScenarios,
  loadScenario,
  readReport,
  Progress,
  runExperiment,
  runLab,
  summaryText,
  type LabConfig,
  type LabHooks,
  type LabReport,
  type Scenario,
} from '../lab/index.js';
import { experimentNamed } from '../lab/experiments.js';
import { calibrateCommand } from './calibrate.js';
import { parseDuration } from '../api/index.js';
import {
  booleanFlag,
  deprecatedAlias,
  durationTextFlag,
  nonNegativeIntFlag,
  nonNegativeNumberFlag,
} from '../client/index.js';

/** A count of HA members: 1 to 9 (the API servers take 127.0.0.2 to .10). */
function haCountFlag(v: string): number {
  const n = nonNegativeIntFlag(v);
  if (n < 1 || n > 9) throw new InvalidArgumentError('must be 1 to 9');
  return n;
}

/** A nice value the lab starts a process with: 0 to 19 (raising priority would need privileges). */
function niceFlag(v: string): number {
  const n = nonNegativeIntFlag(v);
  if (n > 19) throw new InvalidArgumentError('must be 0 to 19');
  return n;
}

/** The flags shared by `kscale up` and `kscale lab experiment`. */
function addRunFlags(cmd: Command): Command {
  cmd
    .optionsGroup('Scenario and load:')
    .option(
      '--nodes <n>',
      'hollow nodes (kscale up: 2500, the main job; experiments: their own size)',
      nonNegativeIntFlag,
    )
    .option('--pods-per-node <n>', "pods per node (default: the scenario's, 30 for load)", nonNegativeIntFlag)
    .option(
      '--pod-rate <n>',
      'pods created (and deleted) per second (105: the 100 pods/s target with 5% headroom)',
      nonNegativeNumberFlag,
      105,
    )
    .option('--scenario <name|file>', `scenario: ${listScenarios().join(', ')}, or a YAML file`, 'load')
    .option('--report <dir>', 'report folder (default: a new timestamped folder under ./kscale-reports/)')
    .optionsGroup('Workload mode:')
    .addOption(
      new Option(
        '--workloads <mode>',
        'controllers: Deployments and Jobs made by the controller-manager; pods: the lab creates the pods itself',
      )
        .choices(['auto', 'controllers', 'pods'])
        .default('auto'),
    )
    .addOption(
      new Option('--binding <mode>', 'scheduler: kscale scheduler binds pods; direct: the lab sets spec.nodeName')
        .choices(['auto', 'scheduler', 'direct'])
        .default('auto'),
    )
    .optionsGroup('API server and storage:')
    .option('--etcd-servers <urls>', 'use this etcd instead of the embedded store')
    .addOption(
      new Option(
        '--lab-etcd <mode>',
        'etcd processes the lab runs itself: main, or main+events (Events in their own etcd)',
      )
        .choices(['none', 'main', 'main+events'])
        .default('none'),
    )
    .addOption(
      new Option('--storage-sync <mode>', "embedded store durability: full (fsync, etcd's) or normal")
        .choices(['full', 'normal'])
        .default('full'),
    )
    .option('--watch-cache <bool>', "the API server's watch cache", booleanFlag, true)
    .option(
      '--insecure',
      'A/B switch: every component on the plain-HTTP --insecure-port with AlwaysAllow (default: TLS, Node,RBAC, an identity per component)',
    )
    .option('--max-requests-inflight <n>', 'API server read-only in-flight limit (0: none)', nonNegativeIntFlag, 400)
    .option(
      '--max-mutating-requests-inflight <n>',
      'API server mutating in-flight limit (0: none)',
      nonNegativeIntFlag,
      200,
    )
    .optionsGroup('Highly available control plane (docs/ha.md):')
    .option('--etcd-members <n>', 'an etcd cluster of n members on loopback (Debian etcd-server)', haCountFlag, 1)
    .option(
      '--apiservers <n>',
      'n API servers over the etcd cluster, behind HAProxy (mode tcp, /readyz checks)',
      haCountFlag,
      1,
    )
    .option('--schedulers <n>', 'n schedulers, leader-elected on the kube-scheduler Lease', haCountFlag, 1)
    .option(
      '--controller-managers <n>',
      'n controller-managers, leader-elected on the kube-controller-manager Lease',
      haCountFlag,
      1,
    )
    .optionsGroup('Hollow nodes and node lifecycle:')
    .addOption(
      new Option('--heartbeat <mode>', "hollow kubelets' heartbeat").choices(['lease', 'status']).default('lease'),
    )
    .option('--node-status-update-frequency <duration>', "hollow kubelets' status period", durationTextFlag, '10s')
    .option('--node-monitor-period <duration>', 'controller-manager node monitor period', durationTextFlag, '5s')
    .option(
      '--node-monitor-grace-period <duration>',
      'controller-manager node monitor grace period',
      durationTextFlag,
      '50s',
    )
    .addOption(
      new Option('--pod-watch <mode>', "hollow kubelets' pod watch")
        .choices(['per-node', 'shared'])
        .default('per-node'),
    )
    .addOption(
      new Option(
        '--node-join <mode>',
        'csr (default): the server serves TLS with bootstrap tokens, and hollow nodes join through CSRs, each with its own certificate and HTTP/2 connection; shared: one credential for the fleet (what --insecure and --pod-watch shared use)',
      ).choices(['csr', 'shared']),
    )
    .option(
      '--pod-startup-latency <ms>',
      "the hollow kubelets' fixed simulated container start, in ms (kscale nodes takes p50,p99)",
      nonNegativeIntFlag,
      1000,
    )
    .option('--join-rate <n>', 'nodes registering per second', nonNegativeNumberFlag, 50)
    .option(
      '--kubelet-max-connections <n>',
      'keep-alive sockets each fleet process shares for short requests, split evenly between node heartbeats and pods',
      nonNegativeIntFlag,
      64,
    )
    .option(
      '--fleet-processes <n>',
      'hollow-node fleet processes the nodes are split over (contiguous slices); 0: one per 1,250 nodes',
      nonNegativeIntFlag,
      0,
    )
    .option(
      '--fleet-nice <n>',
      "the fleet processes' nice value, 0 to 19: above 0 the hollow nodes (which stand in for machines of their own) take the CPU the control plane leaves; 0 shares the cores evenly",
      niceFlag,
      0,
    )
    .option(
      '--noisy-neighbour <lists,writes>',
      'a ServiceAccount with this many cluster-wide pod LISTs and ConfigMap writes in flight; the fleet then heartbeats as system:nodes over the secure port (throttling experiment: 50,250)',
      noisyNeighbourFlag,
    )
    .addOption(
      new Option('--proxy-mode <mode>', 'hollow proxies in each node (needs kscale nodes --hollow-proxy)')
        .choices(['off', 'iptables', 'ipvs', 'nftables'])
        .default('off'),
    )
    .optionsGroup('Client rate limits:')
    .option(
      '--controller-manager-qps <n>',
      'controller-manager client QPS (upstream 20; raised by the lab)',
      nonNegativeNumberFlag,
    )
    .option('--controller-manager-burst <n>', 'controller-manager client burst (upstream 30)', nonNegativeNumberFlag)
    .option(
      '--controller-manager-workload-syncs <n>',
      'Deployment and ReplicaSet controller workers (upstream 5 each; raised to 10 by the lab)',
      nonNegativeIntFlag,
    )
    .option('--scheduler-qps <n>', 'scheduler client QPS (upstream 50; raised by the lab)', nonNegativeNumberFlag)
    .option('--scheduler-burst <n>', 'scheduler client burst (upstream 100)', nonNegativeNumberFlag)
    .option('--kubelet-qps <n>', 'per hollow kubelet client QPS (upstream 50)', nonNegativeNumberFlag, 50)
    .option('--kubelet-burst <n>', 'per hollow kubelet client burst (upstream 100)', nonNegativeNumberFlag, 100)
    .optionsGroup('Measurement and phases:')
    .option('--scrape-interval <duration>', 'how often /metrics and /proc are read', durationTextFlag, '5s')
    .option(
      '--prometheus',
      "run Debian's prometheus scraping every component; report its PromQL SLIs beside the lab's",
    );
  return deprecatedAlias(addPhaseFlags(cmd), 'pod-startup-ms', 'pod-startup-latency', nonNegativeIntFlag);
}

/** --phase-timeout, --settle, --hold and --seed: shared by `kscale up`, `kscale lab experiment` and `kscale load`. */
export function addPhaseFlags(cmd: Command): Command {
  return cmd
    .option(
      '--phase-timeout <duration>',
      'upper bound on each phase (default: from its pods and the pod rate)',
      durationTextFlag,
    )
    .option('--settle <duration>', 'measurement after the last phase', durationTextFlag, '5s')
    .option('--hold <duration>', "overrides the duration of the scenario's hold phases", durationTextFlag)
    .option('--seed <n>', 'seed of the scale and rollout picks', nonNegativeIntFlag, 1);
}

/** The scenario with --hold, when given, as the duration of its hold phases. */
export function withHold(o: Record<string, unknown>, scenario: Scenario): Scenario {
  const hold = o.hold === undefined ? undefined : parseDuration(o.hold as string);
  return hold === undefined
    ? scenario
    : { ...scenario, phases: scenario.phases.map((p) => (p.type === 'hold' ? { ...p, durationMs: hold } : p)) };
}

/** Sets what --scrape-interval and addPhaseFlags' flags say. */
export function applyPhaseFlags(c: LabConfig, o: Record<string, unknown>): void {
  c.scrapeIntervalMs = parseDuration(o.scrapeInterval as string);
  c.phaseTimeoutMs = o.phaseTimeout === undefined ? 0 : parseDuration(o.phaseTimeout as string);
  c.settleS = parseDuration(o.settle as string) / 1000;
  c.seed = o.seed as number;
}

/** A LabConfig from the run flags. */
function configFrom(
  o: Record<string, unknown>,
  scenario: Scenario,
  reportDir: string,
  defaults: { nodes?: number } = {},
): LabConfig {
  const s = withHold(o, scenario);
  const c = defaultConfig(s, reportDir);
  c.nodes = (o.nodes as number | undefined) ?? defaults.nodes ?? c.nodes;
  c.podsPerNode = (o.podsPerNode as number | undefined) ?? s.podsPerNode;
  c.podRate = o.podRate as number;
  const w = o.workloads as string;
  const b = o.binding as string;
  if (w !== 'auto' || b !== 'auto') {
    const workloads = w === 'auto' ? (b === 'direct' ? 'pods' : 'controllers') : (w as 'controllers' | 'pods');
    c.mode = { workloads, binding: b === 'auto' ? 'scheduler' : (b as 'scheduler' | 'direct') };
  }
  c.server.labEtcd = o.labEtcd as LabConfig['server']['labEtcd'];
  c.ha = {
    etcdMembers: o.etcdMembers as number,
    apiservers: o.apiservers as number,
    schedulers: o.schedulers as number,
    controllerManagers: o.controllerManagers as number,
  };
  if (c.ha.apiservers > 1 && c.ha.etcdMembers === 1 && c.server.labEtcd === 'none' && o.etcdServers === undefined)
    c.ha.etcdMembers = 3;
  if (o.etcdServers !== undefined) c.server.etcdServers = o.etcdServers as string;
  c.server.storageSync = o.storageSync as 'full' | 'normal';
  c.server.watchCache = o.watchCache !== false;
  c.server.insecure = o.insecure === true;
  c.server.maxRequestsInflight = o.maxRequestsInflight as number;
  c.server.maxMutatingRequestsInflight = o.maxMutatingRequestsInflight as number;
  c.fleet.heartbeat = o.heartbeat as 'lease' | 'status';
  c.fleet.nodeStatusUpdateFrequency = o.nodeStatusUpdateFrequency as string;
  c.fleet.podWatch = o.podWatch as 'per-node' | 'shared';
  if (o.nodeJoin === 'csr' && (o.insecure === true || o.podWatch === 'shared'))
    throw new UsageError('--node-join csr needs TLS and a watch per node: drop --insecure and --pod-watch shared');
  c.fleet.nodeJoin = (o.nodeJoin as 'csr' | 'shared' | undefined) ?? 'csr';
  c.fleet.podStartupMs = o.podStartupLatency as number;
  c.fleet.joinRate = o.joinRate as number;
  c.fleet.processes = o.fleetProcesses as number;
  c.fleet.nice = o.fleetNice as number;
  c.fleet.maxConnections = Math.max(1, o.kubeletMaxConnections as number);
  c.fleet.proxyMode = o.proxyMode as LabConfig['fleet']['proxyMode'];
  c.fleet.qps = o.kubeletQps as number;
  c.fleet.burst = o.kubeletBurst as number;
  if (o.noisyNeighbour !== undefined) {
    c.noisyNeighbour = o.noisyNeighbour as LabConfig['noisyNeighbour'];
    // Under APF the admin's heartbeats would be exempt: the comparison needs them classified as kubelets'.
    c.fleet.identity = 'node-group';
  }
  c.controllerManager.nodeMonitorPeriod = o.nodeMonitorPeriod as string;
  c.controllerManager.nodeMonitorGracePeriod = o.nodeMonitorGracePeriod as string;
  if (o.controllerManagerQps !== undefined) c.controllerManager.qps = o.controllerManagerQps as number;
  if (o.controllerManagerBurst !== undefined) c.controllerManager.burst = o.controllerManagerBurst as number;
  if (o.controllerManagerWorkloadSyncs !== undefined)
    c.controllerManager.workloadSyncs = o.controllerManagerWorkloadSyncs as number;
  if (o.schedulerQps !== undefined) c.scheduler.qps = o.schedulerQps as number;
  if (o.schedulerBurst !== undefined) c.scheduler.burst = o.schedulerBurst as number;
  if (o.prometheus === true) c.prometheus = true;
  applyPhaseFlags(c, o);
  return c;
}

/** Parses --noisy-neighbour's `lists,writes`. */
function noisyNeighbourFlag(v: string): LabConfig['noisyNeighbour'] {
  const m = /^(\d+),(\d+)$/.exec(v.trim());
  if (m === null) throw new InvalidArgumentError('expected <lists>,<writes>, e.g. 50,250');
  return { listsInFlight: Number(m[1]), writesInFlight: Number(m[2]) };
}

/** A new timestamped report folder under ./kscale-reports/. */
export function defaultReportDir(what: string): string {
  const stamp = new Date()
    .toISOString()
    .replace(/[:.]/g, '-')
    .replace(/-\d+Z$/, 'Z');
  return resolve('kscale-reports', `${stamp}-${what}`);
}

/** Ctrl-C: the first aborts the run (the report is still written and every process stopped); a second exits at once. */
export function interruptible(progress: Progress): {
  signal: AbortSignal;
  stopWaiter: (kubeconfig: string, url: string) => Promise<void>;
  dispose(): void;
} {
  const abort = new AbortController();
  let release: (() => void) | undefined;
  let count = 0;
  const onSignal = (sig: NodeJS.Signals): void => {
    count++;
    if (count > 1) process.exit(130);
    if (release !== undefined) {
      progress.log(`${sig}: stopping the cluster`);
      release();
      return;
    }
    progress.log(`${sig}: stopping the run; the report is written with what was measured`);
    abort.abort(new Error(`interrupted by ${sig}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: abort.signal,
    stopWaiter: (kubeconfig, url) =>
      new Promise<void>((resolveStop) => {
        count = 0;
        release = resolveStop;
        progress.log(
          `cluster kept running at ${url}\n  export KUBECONFIG=${kubeconfig}\n  kubectl get nodes\npress Ctrl-C to stop it`,
        );
      }),
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** 0 when the run completed and every SLO passed, 1 when an SLO failed, 3 when the run could not complete. */
export function upExitCode(report: LabReport): number {
  if (report.result !== 'completed') return EXIT.INCOMPLETE;
  return failedSlos(report).length === 0 ? EXIT.OK : EXIT.SLO_FAILED;
}

/** `kscale up` without --nodes is the main job: upstream's load test shape at 2,500 nodes. */
const UP_DEFAULT_NODES = 2500;

/** Adds `kscale up`. */
export function upCommand(): Command {
  const cmd = new Command('up')
    .description(
      'bring up a cluster (API server, controller-manager, scheduler, hollow nodes), run a load scenario, report the SLOs, shut down',
    )
    .optionsGroup('Run and report:')
    .option('--keep-running', 'leave the cluster up after the report, with a kubeconfig printed; Ctrl-C stops it')
    .option(
      '--chaos [scenario]',
      'kill -9 components during the load and report their recovery (scenario: kill, each in turn; ha, the etcd leader then an API server)',
    )
    .option('--chaos-gap <duration>', 'the quiet time before each chaos fault, drawn from [gap, 2 × gap)', '10s')
    .option('--junit <file>', 'also write JUnit XML, one testcase per SLO, for CI');
  addRunFlags(cmd).action(async (o: Record<string, unknown>) => {
    const scenario = asUsage('--scenario', () => loadScenario(o.scenario as string));
    const nodes = (o.nodes as number | undefined) ?? UP_DEFAULT_NODES;
    const dir = o.report !== undefined ? resolve(o.report as string) : defaultReportDir(`${scenario.name}-${nodes}n`);
    const c = configFrom(o, scenario, dir, { nodes: UP_DEFAULT_NODES });
    c.keepRunning = o.keepRunning === true;
    if (o.chaos !== undefined) c.chaos = o.chaos === true ? 'kill' : (o.chaos as string);
    c.chaosGapMs = asUsage('--chaos-gap', () => parseDuration(o.chaosGap as string));
    const progress = new Progress(process.stderr);
    const ctl = interruptible(progress);
    await runAndReport('kscale up', c, o.junit as string | undefined, {
      progress,
      signal: ctl.signal,
      waitForStop: ctl.stopWaiter,
    }).finally(() => ctl.dispose());
  });
  return cmd;
}

/** Runs the lab, prints the summary, writes --junit, and sets the exit code (upExitCode; 3 when it threw). */
export async function runAndReport(
  prog: string,
  c: LabConfig,
  junit: string | undefined,
  hooks: LabHooks,
): Promise<void> {
  try {
    const out = await runLab(c, hooks);
    process.stdout.write(
      `\n${summaryText(out.report)}\n\nreport: ${join(out.reportDir, 'report.json')}\n        ${join(out.reportDir, 'report.html')}\n`,
    );
    if (junit !== undefined) writeFileSync(resolve(junit), junitXml(out.report));
    process.exitCode = upExitCode(out.report);
  } catch (err) {
    process.stderr.write(`${prog}: ${messageOf(err)}\n`);
    process.exitCode = EXIT.INCOMPLETE;
  }
}

/** `kscale lab compare A/report.json B/report.json [...]`: the delta table, and the overlaid charts with --html. */
function compareCommand(): Command {
  return new Command('compare')
    .description('compare runs: key figures of each report against the first, marked better, worse or within noise')
    .argument('<reports...>', 'two or more report.json files (or report folders); the first is the baseline')
    .option('--html <file>', 'also write the overlaid-chart HTML page here')
    .option('--json <file>', 'also write the comparison as JSON here')
    .action((files: string[], o: { html?: string; json?: string }) => {
      if (files.length < 2) throw new UsageError('needs at least two reports to compare');
      const runs = files.map((f, i) => {
        const file = existsSync(f) && statSync(f).isDirectory() ? join(f, 'report.json') : f;
        let report;
        try {
          report = readReport(file);
        } catch (err) {
          throw new UsageError(messageOf(err), { cause: err });
        }
        return {
          label: `${String.fromCharCode(65 + (i % 26))}: ${basename(dirname(resolve(file)))}`,
          dir: file,
          report,
        };
      });
      const out = compareReports(runs);
      process.stdout.write(`${out.text}\n`);
      if (o.html !== undefined) writeFileSync(resolve(o.html), out.html);
      if (o.json !== undefined) writeFileSync(resolve(o.json), `${JSON.stringify(out.json, null, 1)}\n`);
    });
}

/** Adds `kscale lab` with `experiment`, `experiments` and `scenarios`. */
export function labCommand(): Command {
  const lab = new Command('lab').description(
    'the scale lab: experiments (one per big-cluster lesson), scenarios, and comparing runs',
  );
  const exp = new Command('experiment')
    .argument('<name>', `one of: ${EXPERIMENTS.map((e) => e.name).join(', ')}`)
    .description('run one scenario once per variant of a setting, then write a side-by-side report');
  addRunFlags(exp).action(async (name: string, o: Record<string, unknown>, self: Command) => {
    let e;
    try {
      e = experimentNamed(name);
    } catch (err) {
      process.stderr.write(`kscale lab experiment: ${(err as Error).message}\n`);
      process.exit(2);
    }
    // The experiment picks its scenario unless the user names one.
    const userScenario = self.getOptionValueSource('scenario') === 'cli';
    if (userScenario) asUsage('--scenario', () => loadScenario(o.scenario as string));
    const exp2 = userScenario ? { ...e, scenario: o.scenario as string } : e;
    const dir = o.report !== undefined ? resolve(o.report as string) : defaultReportDir(`experiment-${e.name}`);
    const progress = new Progress(process.stderr);
    const ctl = interruptible(progress);
    try {
      const runs = await runExperiment(exp2, (d, scenario) => configFrom(o, scenario, d, exp2.defaults ?? {}), dir, {
        progress,
        signal: ctl.signal,
      });
      process.stdout.write(`\nexperiment ${e.name}: ${e.lesson}\n`);
      for (const r of runs) process.stdout.write(`\n== ${r.label} ==\n${summaryText(r.report)}\n`);
      process.stdout.write(
        `\ncomparison: ${join(dir, 'comparison.html')}\n            ${join(dir, 'comparison.json')}\n`,
      );
      process.exitCode =
        runs.length === exp2.variants.length && runs.every((r) => r.report.result === 'completed') ? 0 : 1;
    } catch (err) {
      process.stderr.write(`kscale lab experiment: ${(err as Error).message}\n`);
      process.exitCode = 1;
    } finally {
      ctl.dispose();
    }
  });
  lab.addCommand(exp);
  lab.addCommand(compareCommand());
  lab.addCommand(calibrateCommand());
  lab.addCommand(
    new Command('experiments').description('list the experiments and their lessons').action(() => {
      for (const e of EXPERIMENTS) process.stdout.write(`${e.name.padEnd(16)} ${e.lesson}\n`);
    }),
  );
  lab.addCommand(
    new Command('scenarios').description('list the shipped scenarios').action(() => {
      for (const s of listScenarios()) process.stdout.write(`${s.padEnd(16)} ${loadScenario(s).description}\n`);
    }),
  );
  return lab;
}
