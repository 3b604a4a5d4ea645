/**
 * One side of the comparison: a fresh `kscale server` with --watch-cache
 * true or false, taken through the phases in order — create the pods (no
 * watchers yet), time full LISTs, open the watches, churn pod status at a
 * fixed rate, wait for the events to drain — reading its CPU, memory and
 * /metrics between phases. Every phase is bounded in count and in time.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { percentiles, type Latency } from '../apiserver/load.js';
import { NAMESPACE } from '../apiserver/pod.js';
import { processCpuMs, startKscale, tempDir, type Cleanup } from '../apiserver/processes.js';
import { Child } from './children.js';
import { inspectorUrl, liveMemory, WindowProfile, type LiveMemory } from './inspector.js';
import {
  monoMs,
  type Target,
  type WatchClientReply,
  type WatchClientRequest,
  type WatchStats,
  type WriterReply,
  type WriterRequest,
  type WriterResult,
} from './protocol.js';
import { memoryOf, scrapeMetrics, storageCallsBetween, sum, timedList, type Samples } from './server_stats.js';

/** Sizes and bounds of a run. */
export interface Config {
  quick: boolean;
  /** Watchers with fieldSelector=spec.nodeName=node-<i>, one per node. */
  nodes: number;
  /** Watchers of every pod. */
  unfiltered: number;
  pods: number;
  createConnections: number;
  createMaxMs: number;
  /** Status updates per second during churn, and for how long. */
  rate: number;
  churnMs: number;
  /** Status PATCHes at the churn rate, before the watches open, to warm the server's PATCH path; not measured. */
  warmupMs: number;
  churnConnections: number;
  /** Longest wait for events still in flight after the last write. */
  drainMaxMs: number;
  /** How long the writer waits for answers after the last arrival. */
  graceMs: number;
  /** Idle time before memory readings. */
  settleMs: number;
  listReps: number;
  listTimeoutMs: number;
  /** No LIST repetition starts after this much time in the LIST phase (storage LISTs take tens of seconds). */
  listBudgetMs: number;
  watchClients: number;
  storageSync: 'full' | 'normal';
  modes: boolean[];
  cpuProfDir: string | undefined;
  /** Where to write a server CPU profile of the churn window (write to drain end). */
  churnProfDir: string | undefined;
}

/** Everything measured with one --watch-cache setting. */
export interface ModeResult {
  watchCache: boolean;
  serverPid: number;
  loadBefore: number[];
  create: WriterResult;
  createServerCpuPercent: number;
  /** Resident memory (bytes): idle before the pods, after the pods, after the churn, and the peak. */
  rss: { base: number; afterCreate: number; afterChurn: number; peak: number };
  /** memoryUsage() after a full GC: before the pods, after creating them, and after the full LISTs. */
  live: { base: LiveMemory; afterCreate: LiveMemory; afterLists: LiveMemory };
  /** Pods the server reports (a limit=1 LIST's remainingItemCount + 1). */
  podCount: number;
  /** Average JSON bytes per pod in a full LIST. */
  avgPodJson: number;
  lists: { rv0: number[]; consistent: number[]; bytes: number; errors: string[] };
  watchers: WatchStats;
  churn: WriterResult;
  writeLatency: Latency;
  /** Marked frames received, and how many the successful writes should have produced. */
  delivered: number;
  expected: number;
  deliveredPerSec: number;
  /** All frames received over churn and drain, per second of churn (bookmarks included). */
  framesPerSec: number;
  /** From the write's scheduled send time (in the object) to receipt. */
  e2e: Latency;
  /** From the write's acknowledgement to receipt (negative: the event beat the answer). */
  afterAck: Latency;
  drainMs: number;
  churnServerCpuPercent: number;
  churnClientCpuPercent: number;
  churnWriterCpuPercent: number;
  /** Storage calls by operation over churn and drain, and the window's length. */
  storageCalls: Record<string, number>;
  storageWindowMs: number;
  cacheStorageReads: number;
  /** apiserver_watch_cache_* and friends for pods at the end (cache mode only). */
  cache: Record<string, number>;
  loadAfter: number[];
}

const podsOf = (s: Samples, name: string): number => sum(s, new RegExp(`^${name}\\{resource="pods"\\}`));

/** Runs every phase against one server; progress goes to `log`. */
export async function runMode(
  cfg: Config,
  cleanup: Cleanup,
  watchCache: boolean,
  log: (msg: string) => void,
): Promise<ModeResult> {
  const loadBefore = loadavg();
  const dir = tempDir(cleanup, `watchcache-${watchCache}`);
  // The inspector (idle but for two GCs) lets memory be read after a full GC.
  const nodeArgs = [
    '--inspect=127.0.0.1:0',
    ...(cfg.cpuProfDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', cfg.cpuProfDir]),
  ];
  const server = await startKscale(
    cleanup,
    join(dir, 'data'),
    [
      '--watch-cache',
      String(watchCache),
      '--storage-sync',
      cfg.storageSync,
      '--max-requests-inflight',
      '5000',
      '--max-mutating-requests-inflight',
      '2000',
    ],
    nodeArgs,
  );
  const t: Target = { host: server.host, port: server.port };
  const base = `http://${t.host}:${t.port}`;
  log(`watch-cache=${watchCache}: server pid ${server.pid} on port ${t.port}`);
  const ns = await fetch(`${base}/api/v1/namespaces`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }),
  });
  if (ns.status !== 201) throw new Error(`create namespace: HTTP ${ns.status} ${await ns.text()}`);
  for (let i = 0; i < 50 && inspectorUrl(server.stderr()) === undefined; i++) await sleep(100);
  const ws = inspectorUrl(server.stderr());
  if (ws === undefined) throw new Error(`no inspector URL in the server's stderr: ${server.stderr()}`);
  await sleep(cfg.settleMs);
  const liveBase = await liveMemory(ws);
  const rssBase = memoryOf(server.pid)?.rss ?? NaN;

  const writer = new Child<WriterRequest, WriterReply>(cleanup, './writer.js', 'writer');
  const writerRun = async (job: WriterRequest, timeoutMs: number): Promise<WriterResult> => {
    const r = await writer.request(job, timeoutMs);
    if (r.type !== 'result') throw new Error('writer: unexpected reply');
    return r.result;
  };

  // ---- create ----
  log(
    `creating ${cfg.pods.toLocaleString('en-US')} pods over ${cfg.nodes} nodes (${cfg.createConnections} connections)`,
  );
  let cpu0 = processCpuMs(server.pid) ?? NaN;
  let t0 = monoMs();
  const create = await writerRun(
    {
      type: 'create',
      target: t,
      namespace: NAMESPACE,
      count: cfg.pods,
      nodes: cfg.nodes,
      connections: cfg.createConnections,
      maxMs: cfg.createMaxMs,
    },
    cfg.createMaxMs + 30_000,
  );
  const createServerCpuPercent = (((processCpuMs(server.pid) ?? NaN) - cpu0) / (monoMs() - t0)) * 100;
  log(
    `  ${create.ok} created at ${Math.round(create.perSec)}/s, ${create.errors} errors${create.firstError === undefined ? '' : ` (first: ${create.firstError})`}`,
  );
  if (create.ok === 0) throw new Error(`no pod was created: ${create.firstError ?? 'unknown error'}`);
  await sleep(cfg.settleMs);
  const rssAfterCreate = memoryOf(server.pid)?.rss ?? NaN;
  const liveAfterCreate = await liveMemory(ws);

  // ---- lists ----
  const first = (await (await fetch(`${base}/api/v1/namespaces/${NAMESPACE}/pods?limit=1`)).json()) as {
    items: unknown[];
    metadata: { remainingItemCount?: number };
  };
  const podCount = first.items.length + (first.metadata.remainingItemCount ?? 0);
  const lists: ModeResult['lists'] = { rv0: [], consistent: [], bytes: 0, errors: [] };
  const listStart = monoMs();
  for (let i = 0; i < cfg.listReps && (i === 0 || monoMs() - listStart < cfg.listBudgetMs); i++) {
    for (const [name, path] of [
      ['rv0', '/api/v1/pods?resourceVersion=0'],
      ['consistent', '/api/v1/pods'],
    ] as const) {
      try {
        const r = await timedList(t, path, cfg.listTimeoutMs);
        if (r.status !== 200) lists.errors.push(`${path}: HTTP ${r.status}`);
        else {
          lists[name].push(r.ms);
          lists.bytes = r.bytes;
        }
      } catch (err) {
        lists.errors.push((err as Error).message);
      }
    }
    log(
      `  LIST ${i + 1}/${cfg.listReps}: RV=0 ${fmt(lists.rv0.at(-1))} ms, consistent ${fmt(lists.consistent.at(-1))} ms, ${(lists.bytes / 1e6).toFixed(0)} MB`,
    );
  }
  const avgPodJson = podCount > 0 ? (lists.bytes - podCount) / podCount : NaN;
  // After the LISTs every cached pod holds its response bytes too: measure what the cache keeps then.
  const liveAfterLists = await liveMemory(ws);

  // ---- watches ----
  const rv = ((await (await fetch(`${base}/api/v1/pods?limit=1`)).json()) as { metadata: { resourceVersion: string } })
    .metadata.resourceVersion;
  const q = `watch=true&allowWatchBookmarks=true&timeoutSeconds=3600&resourceVersion=${rv}`;
  const paths = [
    ...Array.from({ length: cfg.nodes }, (_, i) => `/api/v1/pods?${q}&fieldSelector=spec.nodeName%3Dnode-${i}`),
    ...Array.from({ length: cfg.unfiltered }, () => `/api/v1/pods?${q}`),
  ];
  const clients = Array.from(
    { length: cfg.watchClients },
    (_, i) => new Child<WatchClientRequest, WatchClientReply>(cleanup, './watch_client.js', `watch client ${i}`),
  );
  const ask = (m: WatchClientRequest, timeoutMs = 60_000): Promise<WatchClientReply[]> =>
    Promise.all(clients.map((c) => c.request(m, timeoutMs)));
  const statsOf = (rs: WatchClientReply[]): WatchStats =>
    mergeStats(rs.map((r) => ('stats' in r ? r.stats : emptyStats())));
  log(
    `opening ${paths.length} watches from RV ${rv} (${cfg.nodes} by spec.nodeName, ${cfg.unfiltered} unfiltered) in ${clients.length} client process(es)`,
  );
  const opened = statsOf(
    await Promise.all(
      clients.map((c, i) =>
        c.request(
          {
            type: 'open',
            target: t,
            paths: paths.filter((_, j) => j % clients.length === i),
            concurrency: 64,
            timeoutMs: 30_000,
          },
          180_000,
        ),
      ),
    ),
  );
  log(
    `  ${opened.opened} open, ${opened.failed} failed${opened.firstError === undefined ? '' : ` (first: ${opened.firstError})`}`,
  );
  if (opened.opened === 0) throw new Error(`no watch could be opened: ${opened.firstError ?? ''}`);
  await sleep(1_000);

  // ---- warm-up, with the watches open: neither the PATCH path (creation used POST) nor the
  // fan-out to 2,510 watchers has run yet, and both would start cold inside the measured window ----
  if (cfg.warmupMs > 0) {
    const n = Math.min(create.ok, Math.round((cfg.rate * cfg.warmupMs) / 1000));
    log(`warm-up: ${n} status PATCHes at ${cfg.rate}/s, not measured`);
    const w = await writerRun(
      {
        type: 'churn',
        target: t,
        namespace: NAMESPACE,
        count: n,
        rate: cfg.rate,
        pods: create.ok,
        offset: create.ok - n,
        connections: cfg.churnConnections,
        maxMs: cfg.warmupMs + 1_000,
        graceMs: cfg.graceMs,
      },
      cfg.warmupMs + cfg.graceMs + 60_000,
    );
    if (w.errors > 0)
      throw new Error(`warm-up: ${w.errors} errors${w.firstError === undefined ? '' : ` (first: ${w.firstError})`}`);
    await sleep(cfg.settleMs);
  }

  // ---- churn ----
  const count = Math.round((cfg.rate * cfg.churnMs) / 1000);
  log(`churning: ${count} pod status PATCHes at ${cfg.rate}/s (${cfg.churnConnections} connections)`);
  await ask({ type: 'reset' });
  const m0 = await scrapeMetrics(t);
  const framesOf = (s: WatchStats): number => Object.values(s.frames).reduce((a, b) => a + b, 0);
  const frames0 = framesOf(statsOf(await ask({ type: 'stats' })));
  const clientCpu = (): number => clients.reduce((a, c) => a + (processCpuMs(c.pid) ?? NaN), 0);
  cpu0 = processCpuMs(server.pid) ?? NaN;
  const clientCpu0 = clientCpu();
  const writerCpu0 = processCpuMs(writer.pid) ?? NaN;
  const profile = cfg.churnProfDir === undefined ? undefined : await WindowProfile.start(ws);
  t0 = monoMs();
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, memoryOf(server.pid)?.rss ?? 0)), 500);
  let churn: WriterResult;
  try {
    churn = await writerRun(
      {
        type: 'churn',
        target: t,
        namespace: NAMESPACE,
        count,
        rate: cfg.rate,
        pods: create.ok,
        offset: 0,
        connections: cfg.churnConnections,
        maxMs: cfg.churnMs + 1_000,
        graceMs: cfg.graceMs,
      },
      cfg.churnMs + cfg.graceMs + 60_000,
    );
  } finally {
    clearInterval(sampler);
  }
  const writerCpuMs = (processCpuMs(writer.pid) ?? NaN) - writerCpu0;
  const writeEnd = monoMs();
  log(
    `  ${churn.ok} written at ${Math.round(churn.perSec)}/s, ${churn.errors} errors, ${churn.unanswered} unanswered (${churn.unsent} never sent)${churn.firstError === undefined ? '' : ` (first: ${churn.firstError})`}`,
  );

  // ---- drain: wait for the events of the acknowledged writes ----
  const expected = churn.ok * (1 + cfg.unfiltered);
  let last = statsOf(await ask({ type: 'stats' }));
  let lastChange = monoMs();
  while (last.marked < expected && monoMs() - writeEnd < cfg.drainMaxMs && monoMs() - lastChange < 5_000) {
    await sleep(250);
    const s = statsOf(await ask({ type: 'stats' }));
    if (s.marked !== last.marked) lastChange = monoMs();
    last = s;
  }
  const drainMs = monoMs() - writeEnd;
  const windowMs = monoMs() - t0;
  const churnServerCpuPercent = (((processCpuMs(server.pid) ?? NaN) - cpu0) / windowMs) * 100;
  const churnClientCpuPercent = ((clientCpu() - clientCpu0) / windowMs) * 100;
  if (profile !== undefined) {
    const file = join(cfg.churnProfDir!, `churn-watch-cache-${watchCache}-${server.pid}.cpuprofile`);
    mkdirSync(cfg.churnProfDir!, { recursive: true });
    writeFileSync(file, await profile.stop());
    log(`  churn CPU profile: ${file}`);
  }
  const m1 = await scrapeMetrics(t);
  log(
    `  ${last.marked.toLocaleString('en-US')} of ${expected.toLocaleString('en-US')} marked events received, drained in ${(drainMs / 1000).toFixed(1)} s`,
  );

  // ---- latencies: join receipts with the writer's send and answer times ----
  const e2e: number[] = [];
  const afterAck: number[] = [];
  let lastReceipt = t0;
  for (const r of await ask({ type: 'collect' }, 120_000)) {
    if (r.type !== 'collected') continue;
    for (let i = 0; i < r.ids.length; i++) {
      const id = r.ids[i]!;
      const at = r.times[i]!;
      lastReceipt = Math.max(lastReceipt, at);
      const sent = churn.sent?.[id];
      if (sent !== undefined && !Number.isNaN(sent)) e2e.push(at - sent);
      const ack = churn.acked?.[id];
      if (ack !== undefined && !Number.isNaN(ack)) afterAck.push(at - ack);
    }
  }
  const writes: number[] = [];
  for (let k = 0; k < (churn.sent?.length ?? 0); k++)
    if (!Number.isNaN(churn.acked![k]!)) writes.push(churn.acked![k]! - churn.sent![k]!);
  const firstSend = churn.sent?.[0] ?? t0;
  const rssAfterChurn = memoryOf(server.pid)?.rss ?? NaN;
  const peakRss = Math.max(peak, memoryOf(server.pid)?.peak ?? 0);
  const watchers = statsOf(await ask({ type: 'stats' }));
  await ask({ type: 'close' });
  const cache: Record<string, number> = {};
  for (const name of [
    'apiserver_watch_cache_capacity',
    'apiserver_watch_cache_events_received_total',
    'apiserver_watch_cache_events_dispatched_total',
    'apiserver_registered_watchers',
    'apiserver_terminated_watchers_total',
    'kscale_watch_cache_objects',
    'apiserver_watch_cache_resource_version',
  ]) {
    if ([...m1.keys()].some((k) => k.startsWith(`${name}{resource="pods"}`))) cache[name] = podsOf(m1, name);
  }
  const loadAfter = loadavg();
  await stopServer(server.pid);
  const { sent: _s, acked: _a, ...churnFigures } = churn;
  return {
    watchCache,
    serverPid: server.pid,
    loadBefore,
    create,
    createServerCpuPercent,
    rss: { base: rssBase, afterCreate: rssAfterCreate, afterChurn: rssAfterChurn, peak: peakRss },
    live: { base: liveBase, afterCreate: liveAfterCreate, afterLists: liveAfterLists },
    podCount,
    avgPodJson,
    lists,
    watchers,
    churn: churnFigures,
    writeLatency: percentiles(Float64Array.from(writes)),
    delivered: last.marked,
    expected,
    deliveredPerSec: (last.marked / Math.max(1, lastReceipt - firstSend)) * 1000,
    framesPerSec: ((framesOf(last) - frames0) / (writeEnd - t0)) * 1000,
    e2e: percentiles(Float64Array.from(e2e)),
    afterAck: percentiles(Float64Array.from(afterAck)),
    drainMs,
    churnServerCpuPercent,
    churnClientCpuPercent,
    churnWriterCpuPercent: (writerCpuMs / (writeEnd - t0)) * 100,
    storageCalls: storageCallsBetween(m0, m1),
    storageWindowMs: windowMs,
    cacheStorageReads:
      podsOf(m1, 'kscale_watch_cache_storage_reads_total') - podsOf(m0, 'kscale_watch_cache_storage_reads_total'),
    cache,
    loadAfter,
  };
}

/** Cores on this machine (for the report's CPU column). */
export const CORES = cpus().length;

function emptyStats(): WatchStats {
  return { opened: 0, failed: 0, closedByServer: 0, frames: {}, marked: 0, bytes: 0 };
}

function mergeStats(all: WatchStats[]): WatchStats {
  const out = emptyStats();
  for (const s of all) {
    out.opened += s.opened;
    out.failed += s.failed;
    out.closedByServer += s.closedByServer;
    out.marked += s.marked;
    out.bytes += s.bytes;
    for (const [k, v] of Object.entries(s.frames)) out.frames[k] = (out.frames[k] ?? 0) + v;
    if (out.firstError === undefined && s.firstError !== undefined) out.firstError = s.firstError;
  }
  return out;
}

/** SIGTERM, then SIGKILL after 30 s (a CPU profile is written at exit); resolves once the process is gone. */
async function stopServer(pid: number): Promise<void> {
  const gone = (): boolean => {
    try {
      return readFileSync(`/proc/${pid}/stat`, 'latin1').includes(') Z ');
    } catch {
      return true;
    }
  };
  process.kill(pid, 'SIGTERM');
  const start = monoMs();
  while (!gone()) {
    if (monoMs() - start > 30_000) {
      process.kill(pid, 'SIGKILL');
      break;
    }
    await sleep(100);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function fmt(x: number | undefined): string {
  return x === undefined ? '-' : x.toFixed(0);
}
