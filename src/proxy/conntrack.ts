/**
 * Clears stale UDP conntrack entries with the `conntrack` tool, like
 * upstream's conntrack cleanup: UDP has no connection end, so a flow NATed
 * to an endpoint that went away would keep hitting it until it times out.
 * "Nothing deleted" (exit 1, "0 flow entries") is success.
 */
import type { Executor } from './exec.js';

/** The conntrack deletions one sync needs. */
export interface StaleUDP {
  /** Cluster IPs (or external IPs) whose UDP flows are all stale. */
  readonly ips: Iterable<string>;
  /** UDP node ports whose flows are all stale. */
  readonly nodePorts: Iterable<number>;
  /** Flows from a service IP (or node port) that were NATed to an endpoint now gone. */
  readonly nat: Iterable<{ origDst?: string; nodePort?: number; endpointIP: string }>;
}

/** Runs conntrack deletions. */
export class Conntrack {
  /** Deletions issued (including those that matched nothing). */
  issued = 0;
  constructor(private readonly exec: Executor) {}

  /** Deletes every flow in `stale`; returns the number of conntrack calls. */
  async clear(stale: StaleUDP): Promise<number> {
    const calls: string[][] = [];
    for (const ip of stale.ips) calls.push(['-D', '--orig-dst', ip, '-p', 'udp']);
    for (const port of stale.nodePorts) calls.push(['-D', '-p', 'udp', '--dport', String(port)]);
    for (const n of stale.nat) {
      if (n.origDst !== undefined) calls.push(['-D', '--orig-dst', n.origDst, '--dst-nat', n.endpointIP, '-p', 'udp']);
      if (n.nodePort !== undefined)
        calls.push(['-D', '-p', 'udp', '--dport', String(n.nodePort), '--dst-nat', n.endpointIP]);
    }
    for (const args of calls) {
      const r = await this.exec.run(['conntrack', ...args]);
      this.issued++;
      if (r.code !== 0 && !r.stderr.includes('0 flow entries'))
        throw new Error(`conntrack ${args.join(' ')}: ${r.stderr.trim()}`);
    }
    return calls.length;
  }
}
