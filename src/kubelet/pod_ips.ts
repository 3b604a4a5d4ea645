/**
 * Pod IPs from the node's pod CIDR, like a host-local IPAM plugin: the
 * lowest free host address of the /24 (.1 to .254), released when the pod goes.
 */

/** Hands out addresses of one /24. */
export class PodIPAllocator {
  private readonly prefix: string;
  private readonly used = new Set<number>();

  constructor(podCIDR: string) {
    const m = /^(\d+\.\d+\.\d+)\.0\/24$/.exec(podCIDR);
    if (m === null) throw new Error(`pod CIDR must be a /24: ${podCIDR}`);
    this.prefix = m[1]!;
  }

  /** The lowest free address; throws when all 254 are taken. */
  allocate(): string {
    for (let i = 1; i < 255; i++) {
      if (this.used.has(i)) continue;
      this.used.add(i);
      return `${this.prefix}.${i}`;
    }
    throw new Error(`pod CIDR ${this.prefix}.0/24 is exhausted`);
  }

  /** Marks an address in use (a running pod adopted after a restart); false when it is not in this CIDR. */
  claim(ip: string): boolean {
    const host = this.hostPart(ip);
    if (host === undefined) return false;
    this.used.add(host);
    return true;
  }

  /** Frees an address. */
  release(ip: string): void {
    const host = this.hostPart(ip);
    if (host !== undefined) this.used.delete(host);
  }

  /** Addresses in use. */
  get size(): number {
    return this.used.size;
  }

  private hostPart(ip: string): number | undefined {
    if (!ip.startsWith(`${this.prefix}.`)) return undefined;
    const n = Number(ip.slice(this.prefix.length + 1));
    return Number.isInteger(n) && n > 0 && n < 255 ? n : undefined;
  }
}
