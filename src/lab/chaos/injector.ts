/**
 * Runs a chaos scenario during the lab's load: before each fault it writes a batch of ConfigMaps and keeps those
 * acknowledged, kills the target with SIGKILL at a random moment while a writer creates ConfigMaps one after another
 * (so the time from the kill to the first acknowledged write is the write unavailability clients saw), has the
 * supervisor start it again, then waits until every node is Ready and the API answers, and reads every acknowledged
 * ConfigMap back with consistent GETs and a consistent LIST. Each fault's record goes into the report.
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
  /**
   * Seconds from the target's exit until every node's Lease (kube-node-lease) had been renewed after it: how long
   * the hollow kubelets took to get their heartbeats through again (null: not all within the timeout).
   */
  leasesRenewedS: number | null;
  /**
   * Seconds from the target's exit (SIGKILL sent and the process gone) until the first acknowledged write of those
   * the writer sent after it: how long writes were unavailable to a client that retries at once (null: none was
   * acknowledged before recovery ended).
   */
  writeUnavailableS: number | null;
  /**
   * Acknowledged writes, made just before the kill and during the fault, read back after recovery by consistent
   * GET and LIST through the API, and how many either missed (lost or hidden).
   */
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
/** Sleeps `ms` or until `signal`; its abort listener goes with it (loops sleep on one signal many times). */
const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((r) => {
    const done = (): void => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      r();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
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
    const chosen = o.scenario.refine === undefined ? target : await o.scenario.refine(target, o.supervisor.components);
    faults.push(await injectOne(o, chosen, faults.length));
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
    leasesRenewedS: null,
    writeUnavailableS: null,
    writesChecked: 0,
    writesLost: 0,
  };
  const t0 = performance.now();
  // When the target has exited: writes sent from then on measure the unavailability.
  let killedAt = Infinity;
  const writer = new AbortController();
  const writing = writeUntil(o.client, `fault-${n}-w`, writer.signal, (name, sentAt) => {
    acked.push(name);
    if (sentAt >= killedAt && fault.writeUnavailableS === null)
      fault.writeUnavailableS = (performance.now() - killedAt) / 1000;
  });
  try {
    await o.supervisor.kill(target);
    killedAt = performance.now();
    // Lease renewTimes are the kubelets' wall-clock stamps (MicroTime), so the kill is stamped the same way.
    const killedWall = Date.now();
    await o.supervisor.restart(target);
    fault.restartS = (performance.now() - t0) / 1000;
    const deadline = t0 + (o.recoverTimeoutMs ?? 120_000);
    while (performance.now() < deadline && !o.signal.aborted) {
      if (fault.recoverS === null && (await readyNodes(o.client)) >= o.nodes && fault.writeUnavailableS !== null)
        fault.recoverS = (performance.now() - t0) / 1000;
      if (fault.leasesRenewedS === null && (await leasesRenewedSince(o.client, killedWall)) >= o.nodes)
        fault.leasesRenewedS = (performance.now() - killedAt) / 1000;
      if (fault.recoverS !== null && fault.leasesRenewedS !== null) break;
      await sleep(500, o.signal);
    }
    writer.abort();
    await writing;
    fault.writesChecked = acked.length;
    // A consistent LIST (no resourceVersion) and a consistent GET of each: an acknowledged write must be in both.
    const listed = new Set(
      (await o.client.resource(RESOURCES.configmaps).list({ namespace: NS })).items.map(
        (cm) => (cm as { metadata?: { name?: string } }).metadata?.name,
      ),
    );
    for (const name of acked) {
      const found = await o.client
        .resource(RESOURCES.configmaps)
        .get(name, { namespace: NS })
        .then(() => true)
        .catch((err: unknown) => (isNotFoundError(err) ? false : Promise.reject(err as Error)));
      if (!found || !listed.has(name)) fault.writesLost++;
    }
  } catch (err) {
    fault.error = (err as Error).message;
  } finally {
    writer.abort();
    await writing;
  }
  return fault;
}

/**
 * Creates ConfigMaps `<prefix><i>` one after another until `signal`, 20 ms apart, and reports each acknowledged
 * one with the moment it was sent (failed ones are not retried: the next write is the retry). Bounded by the
 * caller's recovery timeout.
 */
async function writeUntil(
  client: RESTClient,
  prefix: string,
  signal: AbortSignal,
  onAck: (name: string, sentAt: number) => void,
): Promise<void> {
  for (let i = 0; !signal.aborted; i++) {
    const name = `${prefix}${i}`;
    const sentAt = performance.now();
    const ok = await client
      .resource(RESOURCES.configmaps)
      .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data: { v: name } } as never)
      .then(() => true)
      .catch(() => false);
    if (ok) onAck(name, sentAt);
    await sleep(20, signal);
  }
}

/** Node Leases renewed at or after `sinceMs` (wall clock); 0 while the API does not answer. */
async function leasesRenewedSince(client: RESTClient, sinceMs: number): Promise<number> {
  try {
    const list = await client.resource(RESOURCES.leases).list({ namespace: 'kube-node-lease' });
    return list.items.filter((l) => {
      const renew = (l as { spec?: { renewTime?: string } }).spec?.renewTime;
      return renew !== undefined && Date.parse(renew) >= sinceMs;
    }).length;
  } catch {
    return 0;
  }
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
