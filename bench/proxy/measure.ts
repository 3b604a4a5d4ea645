/**
 * Measuring one proxy mode at one size, in its own network namespaces: the
 * initial sync, a full resync, a one-service-change (partial) sync, each with
 * wall time, the proxy's own rule computation, bytes handed to the kernel,
 * rule count and CPU (this process plus the kernel tools it ran); then real
 * TCP connects to the first and the last service in rule order, each with a
 * fresh source port (NAT rules only see new connections).
 */
import { readFileSync } from 'node:fs';
import {
  Executor,
  newProxier,
  type Proxier,
  type ProxyMode,
  type SyncInput,
  type SyncResult,
} from '../../src/proxy/index.js';
import { NetnsLab, endpointIP } from '../../src/proxy/testing/netns.js';
import { ENDPOINTS_PER_SERVICE, changeOne, clusterIP, workload } from './workload.js';

/** One sync's figures. */
export interface SyncFigures {
  wallMs: number;
  renderMs: number;
  cpuMs: number;
  bytes: number;
  rules: number;
}

/** Connect latency percentiles in ms, with the sample count and failures. */
export interface ConnectFigures {
  p50: number;
  p99: number;
  samples: number;
  failures: number;
}

/** Everything measured for one mode at one size. */
export interface ModeResult {
  mode: string;
  n: number;
  /** Why the kernel part did not run (or not to the end), when it did not. */
  kernel: string | undefined;
  /** A sync exceeded the time limit. */
  timedOut?: boolean;
  initial?: SyncFigures;
  resync?: SyncFigures;
  change?: SyncFigures;
  first?: ConnectFigures;
  last?: ConnectFigures;
}

/** CPU ms of this process and of the children it has waited for (utime+stime+cutime+cstime from /proc). */
function cpuMs(): number {
  const f = readFileSync('/proc/self/stat', 'utf8');
  const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
  // Fields 14..17 of stat (1-based); after the comm field they start at index 11.
  const ticks = [11, 12, 13, 14].reduce((a, i) => a + Number(fields[i]), 0);
  return (ticks * 1000) / 100;
}

/** CPU ms of a long-lived tool process the proxier keeps (nftables' `nft -i`), not yet in cutime. */
const toolCpuMs = (p: Proxier): number => (p as { session?: { cpuMs(): number } }).session?.cpuMs() ?? 0;

async function timed(p: Proxier, input: SyncInput): Promise<SyncFigures> {
  const c0 = cpuMs() + toolCpuMs(p);
  const t0 = performance.now();
  const r: SyncResult = await p.sync(input);
  const wallMs = performance.now() - t0;
  return {
    wallMs,
    renderMs: r.renderMs,
    cpuMs: cpuMs() + toolCpuMs(p) - c0,
    bytes: r.bytes,
    rules: Object.values(r.rules).reduce((a, b) => a + b, 0),
  };
}

function percentiles(ms: number[]): { p50: number; p99: number } {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
  return { p50: at(0.5), p99: at(0.99) };
}

async function connectFigures(lab: NetnsLab, ip: string, samples: number): Promise<ConnectFigures> {
  const got = await lab.connect(lab.node, 'tcp', ip, 80, samples, 2000);
  const ok = got.filter((s) => s.reply.endsWith(':8080'));
  return { ...percentiles(ok.map((s) => s.connectMs)), samples: got.length, failures: got.length - ok.length };
}

/** A mode spec: the proxy mode plus the iptables backend. */
export interface ModeSpec {
  label: string;
  mode: ProxyMode;
  backend: 'legacy' | 'nft' | 'auto';
}

/** Runs one mode at one size. `renderOnly` skips the kernel (IPVS without ip_vs). */
export async function measureMode(
  spec: ModeSpec,
  n: number,
  samples: number,
  maxSyncMs: number,
  progress: (m: string) => void,
  changes = 1,
): Promise<ModeResult> {
  const w = workload(n);
  const node = { name: 'bench-node', zone: '' };
  const input = (full: boolean, changed: Set<string> = new Set()): SyncInput => ({
    services: w.services,
    endpoints: w.endpoints,
    node,
    full,
    changed,
  });
  const lab = NetnsLab.create(ENDPOINTS_PER_SERVICE + 1);
  let proxier: Proxier | undefined;
  try {
    // A sync that outlives --max-sync-s is killed: at that size the mode's result is "too slow", not a number.
    const exec = new Executor(lab.node, maxSyncMs);
    const cfg = {
      masqueradeBit: 14,
      masqueradeAll: false,
      clusterCIDR: '',
      iptablesBackend: spec.backend,
      ipvsScheduler: 'rr' as const,
    };
    try {
      proxier = await newProxier(spec.mode, exec, cfg);
    } catch (err) {
      return { mode: spec.label, n, kernel: (err as Error).message };
    }
    await lab.serve(
      8080,
      Array.from({ length: ENDPOINTS_PER_SERVICE + 1 }, (_, j) => endpointIP(j)),
    );
    const r: ModeResult = { mode: spec.label, n, kernel: undefined };
    try {
      progress(`${spec.label} n=${n}: initial sync`);
      r.initial = await timed(proxier, input(true));
      progress(`${spec.label} n=${n}: full resync (${r.initial.wallMs.toFixed(0)} ms for the first)`);
      r.resync = await timed(proxier, input(true));
      // Each change is to a different service; the figure is the median sync (by wall time) of `changes` of them.
      progress(`${spec.label} n=${n}: ${changes} one-service changes`);
      const runs: SyncFigures[] = [];
      for (let i = 0; i < changes; i++)
        runs.push(await timed(proxier, input(false, new Set([changeOne(w.endpoints, (Math.floor(n / 2) + i) % n)]))));
      r.change = runs.sort((a, b) => a.wallMs - b.wallMs)[Math.floor((runs.length - 1) / 2)];
    } catch (err) {
      return {
        ...r,
        kernel: `a sync failed or took over ${maxSyncMs / 1000} s: ${(err as Error).message.split('\n')[0]!.slice(0, 160)}`,
        timedOut: true,
      };
    }
    const { initial, resync, change } = r;
    progress(`${spec.label} n=${n}: ${samples} connects to the first and to the last service`);
    const first = await connectFigures(lab, clusterIP(0), samples);
    const last = await connectFigures(lab, clusterIP(n - 1), samples);
    return { mode: spec.label, n, kernel: undefined, initial, resync, change, first, last };
  } finally {
    await proxier?.close?.();
    await lab.destroy();
  }
}

/** The IPVS mode where the kernel has no ip_vs: only its rule computation, timed through the renderer. */
export async function measureIpvsRender(n: number): Promise<SyncFigures & { full: SyncFigures; change: SyncFigures }> {
  const { DEFAULT_IPVS_CONFIG, IpvsRenderCache, IpvsState, renderIpvs } = await import('../../src/proxy/ipvs/index.js');
  // As the proxier does: one render cache for its lifetime, and one array of node addresses.
  const cache = new IpvsRenderCache();
  const nodeIPs = ['192.168.77.1'];
  const w = workload(n);
  const node = { name: 'bench-node', zone: '' };
  const run = (
    full: boolean,
    state: InstanceType<typeof IpvsState>,
    changed: Set<string>,
  ): { f: SyncFigures; state: InstanceType<typeof IpvsState> } => {
    const c0 = cpuMs();
    const t0 = performance.now();
    const r = renderIpvs(
      { services: w.services, endpoints: w.endpoints, node, full, changed },
      DEFAULT_IPVS_CONFIG,
      nodeIPs,
      state,
      cache,
    );
    const ms = performance.now() - t0;
    let reals = 0;
    for (const vs of r.state.servers.values()) reals += vs.reals.length;
    return {
      f: {
        wallMs: ms,
        renderMs: ms,
        cpuMs: cpuMs() - c0,
        bytes: r.ipvsadmBytes.length + r.ipset.length + r.addrs.length,
        rules: r.state.servers.size + reals,
      },
      state: r.state,
    };
  };
  const initial = run(true, new IpvsState(), new Set());
  // A full resync reads the kernel back; with nothing to read here, the diff against the state just built is what it costs.
  const full = run(true, initial.state, new Set());
  const changed = changeOne(w.endpoints, Math.floor(n / 2));
  const change = run(false, full.state, new Set([changed]));
  return { ...initial.f, full: full.f, change: change.f };
}
