/**
 * ClusterIP allocation from --service-cluster-ip-range (IPv4), like
 * upstream's ipallocator: the first address is the `kubernetes` Service's,
 * allocations are never handed out twice, and the set is rebuilt from the
 * stored Services at start-up so a restart never duplicates one.
 */
import { newStatusError } from '../../api/index.js';

function toInt(ip: string): number {
  const parts = ip.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255))
    throw new Error(`invalid IPv4 address: ${ip}`);
  return ((parts[0] << 24) >>> 0) + (parts[1] << 16) + (parts[2] << 8) + parts[3];
}

function toIP(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** Allocates addresses inside one CIDR, skipping the network and broadcast addresses. */
export class IPAllocator {
  private readonly base: number;
  private readonly size: number;
  private readonly used = new Set<number>();
  private next = 1;

  constructor(readonly cidr: string) {
    const [ip, bits] = cidr.split('/');
    const prefix = Number(bits);
    if (!Number.isInteger(prefix) || prefix < 8 || prefix > 30)
      throw new Error(`invalid --service-cluster-ip-range: ${cidr}`);
    const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
    this.base = (toInt(ip) & mask) >>> 0;
    this.size = 2 ** (32 - prefix);
  }

  /** The first usable address (the `kubernetes` Service's ClusterIP). */
  first(): string {
    return toIP(this.base + 1);
  }

  /** Whether `ip` lies inside the range. */
  contains(ip: string): boolean {
    const n = toInt(ip);
    return n > this.base && n < this.base + this.size - 1;
  }

  /** Marks a specific address used; 422 when it is outside the range, 409-like Invalid when taken. */
  allocate(ip: string, field = 'spec.clusterIPs[0]'): void {
    if (!this.contains(ip)) {
      throw newStatusError(
        422,
        'Invalid',
        `Service "" is invalid: ${field}: Invalid value: "${ip}": provided IP is not in the valid range. The range of valid IPs is ${this.cidr}`,
      );
    }
    const n = toInt(ip);
    if (this.used.has(n))
      throw newStatusError(
        422,
        'Invalid',
        `Service "" is invalid: ${field}: Invalid value: "${ip}": provided IP is already allocated`,
      );
    this.used.add(n);
  }

  /** Marks an address used without checks (rebuilding from storage). */
  restore(ip: string): void {
    if (this.contains(ip)) this.used.add(toInt(ip));
  }

  /** Hands out the next free address. */
  allocateNext(): string {
    for (let i = 0; i < this.size - 2; i++) {
      const off = ((this.next - 1 + i) % (this.size - 2)) + 1;
      const n = this.base + off;
      if (!this.used.has(n)) {
        this.used.add(n);
        this.next = off + 1;
        return toIP(n);
      }
    }
    throw newStatusError(
      500,
      'InternalError',
      `Internal error occurred: failed to allocate a serviceIP: range is full`,
    );
  }

  /** Returns an address to the pool. */
  release(ip: string): void {
    if (this.contains(ip)) this.used.delete(toInt(ip));
  }
}

/** Allocates NodePorts from --service-node-port-range (default 30000-32767). */
export class PortAllocator {
  private readonly used = new Set<number>();
  readonly min: number;
  readonly max: number;
  private next: number;

  constructor(readonly range: string) {
    const m = /^(\d+)-(\d+)$/.exec(range);
    if (m === null || Number(m[1]) > Number(m[2])) throw new Error(`invalid --service-node-port-range: ${range}`);
    this.min = Number(m[1]);
    this.max = Number(m[2]);
    this.next = this.min;
  }

  /** Marks a specific port used; 422 when outside the range or taken. */
  allocate(port: number, field: string): void {
    if (port < this.min || port > this.max) {
      throw newStatusError(
        422,
        'Invalid',
        `Service "" is invalid: ${field}: Invalid value: ${port}: provided port is not in the valid range. The range of valid ports is ${this.range}`,
      );
    }
    if (this.used.has(port))
      throw newStatusError(
        422,
        'Invalid',
        `Service "" is invalid: ${field}: Invalid value: ${port}: provided port is already allocated`,
      );
    this.used.add(port);
  }

  /** Marks a port used without checks (rebuilding from storage). */
  restore(port: number): void {
    this.used.add(port);
  }

  /** Hands out the next free port. */
  allocateNext(): number {
    const n = this.max - this.min + 1;
    for (let i = 0; i < n; i++) {
      const p = this.min + ((this.next - this.min + i) % n);
      if (!this.used.has(p)) {
        this.used.add(p);
        this.next = p + 1;
        return p;
      }
    }
    throw newStatusError(500, 'InternalError', 'Internal error occurred: failed to allocate a nodePort: range is full');
  }

  /** Returns a port to the pool. */
  release(port: number): void {
    this.used.delete(port);
  }
}
