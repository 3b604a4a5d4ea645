/**
 * An in-process model of IPVS's lookup semantics, for machines whose kernel
 * has no ip_vs (this one): the virtual-server table is a hash on
 * (protocol, address, port), so a new connection costs one lookup whatever
 * the number of services; a connection table pins a flow to its real server;
 * persistence templates pin a client address for the timeout; and the rr,
 * lc and sh schedulers pick real servers as the kernel's do (weights of 1).
 * It is a model, not the kernel: tests use it to check that the rendered
 * virtual servers route as intended.
 */
import type { Clock } from '../../clock/index.js';
import { vsKey, type RealServer, type VirtualServer } from './virtual_servers.js';

/** A connection the model routed. */
export interface ModelConnection {
  readonly vs: string;
  readonly real: RealServer;
}

interface Entry {
  vs: VirtualServer;
  rrNext: number;
  active: Map<string, number>;
}

const realKey = (r: RealServer): string => `${r.addr}:${r.port}`;

/** The virtual-server table plus connection and persistence tables. */
export class IpvsModel {
  private readonly table = new Map<string, Entry>();
  private readonly conns = new Map<string, ModelConnection>();
  private readonly templates = new Map<string, { real: RealServer; expires: number }>();
  /** Hash probes made by lookups: one per packet of a new flow, whatever the table size. */
  probes = 0;

  constructor(private readonly clock: Clock) {}

  /** Replaces the table with the given virtual servers (keeping rr positions and counts of those that stay). */
  load(servers: Iterable<VirtualServer>): void {
    const next = new Map<string, Entry>();
    for (const vs of servers) {
      const old = this.table.get(vsKey(vs));
      next.set(vsKey(vs), { vs, rrNext: old?.rrNext ?? 0, active: old?.active ?? new Map() });
    }
    this.table.clear();
    for (const [k, v] of next) this.table.set(k, v);
  }

  /** Routes the first packet of a flow; undefined when no virtual server matches (the packet is not IPVS's). */
  connect(
    proto: string,
    client: string,
    clientPort: number,
    addr: string,
    port: number,
  ): ModelConnection | undefined | 'no-real-server' {
    const flow = `${proto}|${client}:${clientPort}|${addr}:${port}`;
    const existing = this.conns.get(flow);
    if (existing !== undefined) return existing;
    this.probes++;
    const e = this.table.get(vsKey({ proto: proto as VirtualServer['proto'], addr, port }));
    if (e === undefined) return undefined;
    if (e.vs.reals.length === 0) return 'no-real-server';
    let real: RealServer | undefined;
    const tkey = `${vsKey(e.vs)}|${client}`;
    if (e.vs.persistSeconds > 0) {
      const t = this.templates.get(tkey);
      if (t !== undefined && t.expires > this.clock.now() && e.vs.reals.some((r) => realKey(r) === realKey(t.real)))
        real = t.real;
    }
    real ??= this.schedule(e, client);
    if (e.vs.persistSeconds > 0)
      this.templates.set(tkey, { real, expires: this.clock.now() + e.vs.persistSeconds * 1000 });
    e.active.set(realKey(real), (e.active.get(realKey(real)) ?? 0) + 1);
    const c = { vs: vsKey(e.vs), real };
    this.conns.set(flow, c);
    return c;
  }

  /** Ends a flow (lc counts drop). */
  close(proto: string, client: string, clientPort: number, addr: string, port: number): void {
    const flow = `${proto}|${client}:${clientPort}|${addr}:${port}`;
    const c = this.conns.get(flow);
    if (c === undefined) return;
    this.conns.delete(flow);
    const e = this.table.get(c.vs);
    const k = realKey(c.real);
    if (e !== undefined) e.active.set(k, Math.max(0, (e.active.get(k) ?? 1) - 1));
  }

  private schedule(e: Entry, client: string): RealServer {
    const reals = e.vs.reals;
    if (e.vs.scheduler === 'rr') {
      const r = reals[e.rrNext % reals.length]!;
      e.rrNext = (e.rrNext + 1) % reals.length;
      return r;
    }
    if (e.vs.scheduler === 'lc') {
      let best = reals[0]!;
      for (const r of reals) if ((e.active.get(realKey(r)) ?? 0) < (e.active.get(realKey(best)) ?? 0)) best = r;
      return best;
    }
    // sh: a hash of the source address picks the server, so a client always lands on the same one.
    return reals[sourceHash(client) % reals.length]!;
  }
}

/** The source-hashing function: the address as a 32-bit number times the golden-ratio prime, like ip_vs_sh. */
export function sourceHash(ip: string): number {
  const n = ip.split('.').reduce((a, o) => ((a << 8) | Number(o)) >>> 0, 0);
  return (Math.imul(n, 2654435761) >>> 0) >>> 24;
}
