/**
 * Runs a chaos scenario during the lab's load: before each fault it writes a batch of ConfigMaps and keeps those
 * acknowledged, kills the target with SIGKILL at a random moment while a writer creates ConfigMaps one after another
 * (so the time from the kill to the first acknowledged write is the write unavailability clients saw), has the
 * supervisor start it again, then waits until every node is Ready and the API answers, and reads every acknowledged
 * ConfigMap back with consistent GETs and a consistent LIST on every API server. An API server fault also counts the
 * LISTs the servers served meanwhile (a relist storm) against the watches the killed server held; a leader-elected
 * target's fault times the Lease takeover, and a scheduler's whether pods created after the kill get bound. Each
 * fault's record goes into the report.
 */
import { RESOURCES, type RESTClient } from '../../client/index.js';
import type { RunningComponent, Supervisor } from '../supervisor.js';
import { candidatesOf, leaseHolder, leaseOf, pidOfIdentity, tookOver } from './leader.js';
import { boundProbePods, createProbePods, deleteProbePods, PROBE_PODS } from './probe_pods.js';
import { readBackEverywhere } from './read_back.js';
import type { ChaosScenario } from './scenario.js';
import {
  apiServerEndpoints,
  closeEndpoints,
  isApiServer,
  listsBetween,
  scrapeListWatch,
  type ApiServerEndpoint,
  type ListWatchCounts,
} from './servers.js';

/** One fault's record in report.json. */
export interface ChaosFault {
  component: string;
  /** Seconds into the run when the kill was sent. */
  killedAtS: number;
  /** Seconds from the kill until the component was ready again. */
  restartS: number;
  /**
   * Seconds from the kill until all nodes were Ready and the API answered (null: not within the timeout).
   */
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
   * Acknowledged writes, made just before the kill and during the fault, read back after recovery by a consistent
   * GET and a consistent LIST on every API server directly, and how many any server missed (lost or hidden).
   */
  writesChecked: number;
  writesLost: number;
  /** The API servers the writes were read back from one by one (0: only through the lab's client). */
  serversChecked: number;
  /**
   * API server faults: the LISTs all servers served from just before the kill until recovery (apiserver_request_total
   * {verb="LIST"}), the lab's own recovery polls left out; a relist storm shows here.
   */
  listsAfterKill?: number;
  /**
   * API server faults: the watches the killed server held just before the kill (apiserver_longrunning_requests
   * {verb="WATCH"}), one per informer of its clients: the bound on listsAfterKill, as a reflector that resumes its
   * watch from its last resourceVersion does not LIST, and one that must relist LISTs once.
   */
  watchesOnKilledServer?: number;
  /** Leader-elected targets with a standby: the Lease (kube-system) whose holder was killed. */
  lease?: string;
  /** Whether the target held the Lease at the kill (the scenario kills the holder; false: it had moved). */
  killedLeader?: boolean;
  /**
   * Seconds from the kill until another candidate held the Lease with a renewTime after the kill (null: not within
   * the timeout).
   */
  takeoverS?: number | null;
  /** Scheduler faults: seconds from the kill until the probe pods created just after it were all bound (null: not). */
  podsScheduledAfterS?: number | null;
  /** The probe pods created (PROBE_PODS unless the API refused). */
  probePods?: number;
  error?: string;
}

/** What the injector needs from the run. */
export interface ChaosOptions {
  scenario: ChaosScenario;
  supervisor: Supervisor;
  /** The lab's client (through the load balancer in the HA lab). */
  client: RESTClient;
  /**
   * A kubeconfig whose credentials every API server accepts, to reach each one directly (read-back, /metrics);
   * without it writes are read back through `client` alone.
   */
  kubeconfig?: string;
  nodes: number;
  elapsed: () => number;
  random: () => number;
  signal: AbortSignal;
  /** The quiet time before each kill is drawn from [minGapMs, 2 × minGapMs). */
  minGapMs?: number;
  recoverTimeoutMs?: number;
}

/** The namespace of the chaos writes and probe pods (the lab's pod tracker leaves it out). */
export const CHAOS_NAMESPACE = 'kscale-chaos';
const NS = CHAOS_NAMESPACE;
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
  for (const target of await o.scenario.targets(o.supervisor.components, o.client)) {
    await sleep(gap + o.random() * gap, o.signal);
    if (o.signal.aborted) break;
    const chosen =
      o.scenario.refine === undefined ? target : await o.scenario.refine(target, o.supervisor.components, o.client);
    faults.push(await injectOne(o, chosen, faults.length));
  }
  return faults;
}

/** LIST calls the injector itself sends during a fault; listsAfterKill leaves them out. */
interface OwnLists {
  lists: number;
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
    serversChecked: 0,
  };
  const lease = leaseOf(target);
  // A leader-elected target with a standby: its Lease is taken over; alone, it would only take it back itself.
  const leaderElected = lease !== undefined && candidatesOf(o.supervisor.components, lease).length >= 2;
  const probing = leaderElected && lease === 'kube-scheduler';
  const serverFault = isApiServer(target);
  const own: OwnLists = { lists: 0 };
  let endpoints: ApiServerEndpoint[] = serversOf(o);
  let probeNames: string[] = [];
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
    // Just before the kill: who holds the Lease, each server's LISTs so far, and the watches the target holds.
    const holder = leaderElected ? await leaseHolder(o.client, lease) : undefined;
    if (leaderElected) {
      fault.lease = lease;
      fault.killedLeader = holder !== undefined && pidOfIdentity(holder.identity) === target.pid;
      fault.takeoverS = null;
    }
    const before: Map<string, ListWatchCounts> = serverFault ? await scrapeListWatch(endpoints) : new Map();
    const held = before.get(target.spec.name)?.watches;
    if (held !== undefined) fault.watchesOnKilledServer = held;
    await o.supervisor.kill(target);
    killedAt = performance.now();
    // Lease renewTimes are the candidates' and kubelets' wall-clock stamps (MicroTime), so the kill is stamped so too.
    const killedWall = Date.now();
    const deadline = t0 + (o.recoverTimeoutMs ?? 120_000);
    if (probing) {
      // Created while no scheduler leads: binding them needs the standby to take over.
      fault.podsScheduledAfterS = null;
      probeNames = await createProbePods(o.client, NS, `fault-${n}-pod`, PROBE_PODS, deadline);
      fault.probePods = probeNames.length;
    }
    await o.supervisor.restart(target, o.scenario.restartSpec?.(target) ?? target.spec);
    fault.restartS = (performance.now() - t0) / 1000;
    const since = (): number => (performance.now() - killedAt) / 1000;
    while (performance.now() < deadline && !o.signal.aborted) {
      if (fault.recoverS === null && (await readyNodes(o.client, own)) >= o.nodes && fault.writeUnavailableS !== null)
        fault.recoverS = (performance.now() - t0) / 1000;
      if (fault.leasesRenewedS === null && (await leasesRenewedSince(o.client, killedWall, own)) >= o.nodes)
        fault.leasesRenewedS = since();
      if (fault.takeoverS === null && tookOver(await leaseHolder(o.client, lease!), holder?.identity ?? '', killedWall))
        fault.takeoverS = since();
      if (fault.podsScheduledAfterS === null && probeNames.length > 0) {
        own.lists++;
        if ((await boundProbePods(o.client, NS, `fault-${n}-pod`)) >= probeNames.length)
          fault.podsScheduledAfterS = since();
      }
      const waiting = [fault.recoverS, fault.leasesRenewedS, fault.takeoverS, fault.podsScheduledAfterS];
      if (waiting.every((v) => v !== null)) break;
      await sleep(leaderElected ? 250 : 500, o.signal);
    }
    writer.abort();
    await writing;
    // The servers as they run now (the target may be one of them, restarted).
    closeEndpoints(endpoints);
    endpoints = serversOf(o);
    if (serverFault) {
      const after = await scrapeListWatch(endpoints);
      // Only when every server answered both scrapes: a server left out would hide its LISTs.
      if (before.size === endpoints.length && after.size === endpoints.length)
        fault.listsAfterKill = Math.max(0, listsBetween(before, after, target.spec.name) - own.lists);
    }
    fault.writesChecked = acked.length;
    const readers = endpoints.length > 0 ? endpoints : [{ name: 'lab client', client: o.client }];
    const read = await readBackEverywhere(readers, NS, acked);
    fault.writesLost = read.lost;
    fault.serversChecked = endpoints.length;
    if (read.missingOn.length > 0)
      fault.error = `acknowledged writes missing on ${read.missingOn.map((m) => `${m.server} (${m.missing})`).join(', ')}`;
  } catch (err) {
    fault.error = (err as Error).message;
  } finally {
    writer.abort();
    await writing;
    closeEndpoints(endpoints);
    await deleteProbePods(o.client, NS, probeNames);
  }
  return fault;
}

/** A client per API server, when the run gave a kubeconfig every server accepts. */
function serversOf(o: ChaosOptions): ApiServerEndpoint[] {
  return o.kubeconfig === undefined ? [] : apiServerEndpoints(o.supervisor.components, o.kubeconfig);
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
async function leasesRenewedSince(client: RESTClient, sinceMs: number, own: OwnLists): Promise<number> {
  own.lists++;
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
async function readyNodes(client: RESTClient, own: OwnLists): Promise<number> {
  own.lists++;
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
