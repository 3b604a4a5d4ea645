/**
 * `kscale load`: the lab's scenarios and SLO measurement against a cluster that
 * is already running (any Kubernetes cluster, or a kscale one), as
 * ClusterLoader2 does. Nothing is started: the lab creates its namespaces and
 * workloads, measures, writes the report, and deletes its namespaces. The exit
 * codes are `kscale up`'s.
 */
import { Command, Option } from 'commander';
import { resolve } from 'node:path';
import {
  durationTextFlag,
  loadKubeconfig,
  nonNegativeIntFlag,
  nonNegativeNumberFlag,
  RESOURCES,
  RESTClient,
  type KubeObject,
} from '../client/index.js';
import { defaultConfig, loadScenario, Progress, type LabConfig, type Scenario } from '../lab/index.js';
import { asUsage, EXIT, messageOf, UsageError } from './exit.js';
import { addPhaseFlags, applyPhaseFlags, defaultReportDir, interruptible, runAndReport, withHold } from './lab.js';

/** The Ready nodes of the cluster behind `kubeconfig` (--nodes-from-cluster). */
export async function readyNodeCount(kubeconfig: string): Promise<number> {
  // A few retries only: this is the first contact, and an unreachable cluster should fail in seconds.
  const client = new RESTClient({ ...loadKubeconfig({ path: kubeconfig }), qps: 0, burst: 1 }, { maxRetries: 3 });
  const nodes = await client.resource(RESOURCES.nodes).list();
  const ready = (n: KubeObject): boolean =>
    ((n as { status?: { conditions?: { type: string; status: string }[] } }).status?.conditions ?? []).some(
      (c) => c.type === 'Ready' && c.status === 'True',
    );
  return nodes.items.filter(ready).length;
}

/** The load's settings from the flags; `nodes` is the cluster's size the scenario is scaled by. */
function loadConfig(o: Record<string, unknown>, scenario: Scenario, nodes: number, dir: string): LabConfig {
  const s = withHold(o, scenario);
  const c = defaultConfig(s, dir);
  c.existingCluster = { kubeconfig: resolve(o.kubeconfig as string) };
  c.nodes = nodes;
  c.podsPerNode = (o.podsPerNode as number | undefined) ?? s.podsPerNode;
  c.podRate = o.podRate as number;
  const w = o.workloads as 'controllers' | 'pods';
  c.mode = { workloads: w, binding: w === 'pods' ? (o.binding as 'scheduler' | 'direct') : 'scheduler' };
  c.fleet.podStartupMs = o.podStartupLatency as number;
  applyPhaseFlags(c, o);
  return c;
}

/** Adds `kscale load`. */
export function loadCommand(): Command {
  const cmd = new Command('load')
    .description(
      "run a load scenario and the SLO measurement against an existing cluster, starting nothing (ClusterLoader2's job)",
    )
    .requiredOption('--kubeconfig <file>', 'the cluster to load')
    .option('--scenario <name|file>', 'scenario: a shipped one (kscale lab scenarios) or a YAML file', 'load')
    .option(
      '--nodes <n>',
      "the cluster's size the scenario is scaled by (its Ready nodes are waited for)",
      nonNegativeIntFlag,
    )
    .option('--nodes-from-cluster', 'scale the scenario by the Ready nodes the cluster has now')
    .option('--pods-per-node <n>', "pods per node (default: the scenario's, 30 for load)", nonNegativeIntFlag)
    .option('--pod-rate <n>', 'pods created (and deleted) per second', nonNegativeNumberFlag, 105)
    .addOption(
      new Option(
        '--workloads <mode>',
        "controllers: Deployments and Jobs made by the cluster's controllers; pods: the lab creates the pods itself",
      )
        .choices(['controllers', 'pods'])
        .default('controllers'),
    )
    .addOption(
      new Option(
        '--binding <mode>',
        "with --workloads pods: the cluster's scheduler, or direct (the lab sets spec.nodeName)",
      )
        .choices(['scheduler', 'direct'])
        .default('scheduler'),
    )
    .option(
      '--pod-startup-latency <ms>',
      "the nodes' container start to subtract from pod startup's control-plane share (hollow nodes' fixed start; 0 for real nodes)",
      nonNegativeIntFlag,
      0,
    )
    .option('--report <dir>', 'report folder (default: a new timestamped folder under ./kscale-reports/)')
    .option('--junit <file>', 'also write JUnit XML, one testcase per SLO, for CI')
    .option('--scrape-interval <duration>', "how often the server's /metrics is read", durationTextFlag, '5s');
  return addPhaseFlags(cmd).action(async (o: Record<string, unknown>) => {
    const scenario = asUsage('--scenario', () => loadScenario(o.scenario as string));
    if (scenario.phases.some((p) => p.type === 'kill-nodes'))
      throw new UsageError(
        `--scenario ${scenario.name}: kill-nodes phases need the lab's own hollow nodes (kscale up)`,
      );
    const kubeconfig = o.kubeconfig as string;
    asUsage('--kubeconfig', () => loadKubeconfig({ path: kubeconfig }));
    if ((o.nodes === undefined) === (o.nodesFromCluster !== true))
      throw new UsageError('give either --nodes <n> or --nodes-from-cluster');
    // Reached once before anything runs: an unreachable cluster is one line and exit 3, not a hung informer.
    let ready: number;
    try {
      ready = await readyNodeCount(kubeconfig);
    } catch (err) {
      process.stderr.write(`kscale load: cannot read the cluster's nodes: ${messageOf(err)}\n`);
      process.exitCode = EXIT.INCOMPLETE;
      return;
    }
    const nodes = o.nodesFromCluster === true ? ready : (o.nodes as number);
    if (nodes === 0) throw new UsageError('the cluster has no Ready nodes to load');
    const dir =
      o.report !== undefined ? resolve(o.report as string) : defaultReportDir(`load-${scenario.name}-${nodes}n`);
    const progress = new Progress(process.stderr);
    const ctl = interruptible(progress);
    await runAndReport('kscale load', loadConfig(o, scenario, nodes, dir), o.junit as string | undefined, {
      progress,
      signal: ctl.signal,
    }).finally(() => ctl.dispose());
  });
}
