/**
 * Runs a chaos scenario during the lab's load: before each fault it writes a batch of ConfigMaps and keeps those
 * acknowledged, kills the target with SIGKILL at a random moment, has the supervisor start it again, then waits
 * until every node is Ready and the API answers, and reads every acknowledged ConfigMap back. Each fault's record
 * goes into the report.
 */
import { isNotFoundError, RESOURCES, type RESTClient } from '../../client/index.js';
import type { RunningComponent, Supervisor } from '../supervisor.js';
import type { ChaosScenario } from './scenario.js';

/** One fault's record in report.json. */
export interface ChaosFault {
  component: string;
  /** Seconds into the run when the kill was sent. */
  killedAtS: number;
  /** Seconds from the kill until the component was ready again. */
  restartS: number;
  /** Seconds from the kill until all nodes were Ready and the API answered (null: not within the timeout). */
  recoverS: number | null;
  /** Acknowledged writes made just before the kill and read back after recovery, and how many were missing. */
  writesChecked: number;
  writesLost: number;
  error?: string;
}

/** What the injector needs from the run. */
export interface ChaosOptions {
  scenario: ChaosScenario;
  supervisor: Supervisor;
  client: RESTClient;
  nodes: number;
  elapsed: () => number;
  random: () => number;
  signal: AbortSignal;
  /** The quiet time before each kill is drawn from [minGapMs, 2 × minGapMs). */
  minGapMs?: number;
  recoverTimeoutMs?: number;
}

const NS = 'kscale-chaos';
const WRITES = 20;
const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((r) => {
    const t = setTimeout(r, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), r()), { once: true });
  });

/** Kills each of the scenario's targets in turn and records how the cluster came back. */
export async function runChaos(o: ChaosOptions): Promise<ChaosFault[]> {
  const faults: ChaosFault[] = [];
  const gap = o.minGapMs ?? 10_000;
  await o.client
    .resource(RESOURCES.namespaces)
    .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })
    .catch(() => undefined);
  for (const target of await o.scenario.targets(o.supervisor.components)) {
    await sleep(gap + o.random() * gap, o.signal);
    if (o.signal.aborted) break;
    faults.push(await injectOne(o, target, faults.length));
  }
  return faults;
}

async function injectOne(o: ChaosOptions, target: RunningComponent, n: number): Promise<ChaosFault> {
  const acked: string[] = [];
  for (let i = 0; i < WRITES; i++) {
    const name = `fault-${n}-${i}`;
    const ok = await o.client
      .resource(RESOURCES.configmaps)
      .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data: { v: name } } as never)
      .then(() => true)
      .catch(() => false);
    if (ok) acked.push(name);
  }
  const fault: ChaosFault = {
    component: target.spec.name,
    killedAtS: o.elapsed(),
    restartS: 0,
    recoverS: null,
    writesChecked: acked.length,
    writesLost: 0,
  };
  const t0 = performance.now();
  try {
    await o.supervisor.kill(target);
    await o.supervisor.restart(target);
    fault.restartS = (performance.now() - t0) / 1000;
    const deadline = t0 + (o.recoverTimeoutMs ?? 120_000);
    while (performance.now() < deadline && !o.signal.aborted) {
      if ((await readyNodes(o.client)) >= o.nodes) {
        fault.recoverS = (performance.now() - t0) / 1000;
        break;
      }
      await sleep(500, o.signal);
    }
    for (const name of acked) {
      const found = await o.client
        .resource(RESOURCES.configmaps)
        .get(name, { namespace: NS })
        .then(() => true)
        .catch((err: unknown) => (isNotFoundError(err) ? false : Promise.reject(err as Error)));
      if (!found) fault.writesLost++;
    }
  } catch (err) {
    fault.error = (err as Error).message;
  }
  return fault;
}

/** Nodes whose Ready condition is True; 0 while the API does not answer. */
async function readyNodes(client: RESTClient): Promise<number> {
  try {
    const list = await client.resource(RESOURCES.nodes).list();
    const ready = (n: unknown): boolean =>
      ((n as { status?: { conditions?: { type: string; status: string }[] } }).status?.conditions ?? []).some(
        (c) => c.type === 'Ready' && c.status === 'True',
      );
    return list.items.filter(ready).length;
  } catch {
    return 0;
  }
}
