/**
 * ClusterIP and NodePort allocation, like upstream's ipallocator and
 * portallocator: the first address is the `kubernetes` Service's, and an
 * address or port is never handed out twice. The used set is an
 * OffsetAllocator: in memory (rebuilt from the stored Services at start-up,
 * exact for one server) or a bitmap in storage changed by compare-and-swap
 * (exact for several servers; see allocator_storage.ts and the repair
 * controller).
 */
import { newStatusError } from '../../api/index.js';
import { MemoryOffsets, type OffsetAllocator } from './allocator_storage.js';

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
  private next = 0;
  /** The used set, over offsets 0..size-3 (address base+1+offset). */
  offsets: OffsetAllocator;

  constructor(
    readonly cidr: string,
    offsets?: (size: number) => OffsetAllocator,
  ) {
    const [ip, bits] = cidr.split('/');
    const prefix = Number(bits);
    if (!Number.isInteger(prefix) || prefix < 8 || prefix > 30)
      throw new Error(`invalid --service-cluster-ip-range: ${cidr}`);
    const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
    this.base = (toInt(ip) & mask) >>> 0;
    this.size = 2 ** (32 - prefix);
    this.offsets = (offsets ?? ((n) => new MemoryOffsets(n)))(this.count);
  }

  /** How many addresses the range holds (without the network and broadcast addresses). */
  get count(): number {
    return this.size - 2;
  }

  /** The offset of an address inside the range. */
  offsetOf(ip: string): number {
    return toInt(ip) - this.base - 1;
  }

  /** The address at an offset. */
  ipAt(offset: number): string {
    return toIP(this.base + 1 + offset);
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
  async allocate(ip: string, field = 'spec.clusterIPs[0]'): Promise<void> {
    if (!this.contains(ip)) {
      throw newStatusError(
        422,
        'Invalid',
        `Service "" is invalid: ${field}: Invalid value: "${ip}": provided IP is not in the valid range. The range of valid IPs is ${this.cidr}`,
      );
    }
    if (!(await this.offsets.allocate(this.offsetOf(ip))))
      throw newStatusError(
        422,
        'Invalid',
        `Service "" is invalid: ${field}: Invalid value: "${ip}": provided IP is already allocated`,
      );
  }

  /** Marks an address used without checks (rebuilding the in-memory set from the stored Services). */
  async restore(ip: string): Promise<void> {
    if (this.contains(ip)) await this.offsets.allocate(this.offsetOf(ip));
  }

  /** Hands out the next free address. */
  async allocateNext(): Promise<string> {
    const off = await this.offsets.allocateNext(this.next);
    if (off !== null) {
      this.next = (off + 1) % this.count;
      return this.ipAt(off);
    }
    throw newStatusError(
      500,
      'InternalError',
      `Internal error occurred: failed to allocate a serviceIP: range is full`,
    );
  }

  /** Returns an address to the pool. */
  async release(ip: string): Promise<void> {
    if (this.contains(ip)) await this.offsets.release(this.offsetOf(ip));
  }
}

/** Allocates NodePorts from --service-node-port-range (default 30000-32767). */
export class PortAllocator {
  readonly min: number;
  readonly max: number;
  private next = 0;
  /** The used set, over offsets 0..max-min (port min+offset). */
  offsets: OffsetAllocator;

  constructor(
    readonly range: string,
    offsets?: (size: number) => OffsetAllocator,
  ) {
    const m = /^(\d+)-(\d+)$/.exec(range);
    if (m === null || Number(m[1]) > Number(m[2])) throw new Error(`invalid --service-node-port-range: ${range}`);
    this.min = Number(m[1]);
    this.max = Number(m[2]);
    this.offsets = (offsets ?? ((n) => new MemoryOffsets(n)))(this.count);
  }

  /** How many ports the range holds. */
  get count(): number {
    return this.max - this.min + 1;
  }

  /** Whether `port` lies inside the range. */
  contains(port: number): boolean {
    return port >= this.min && port <= this.max;
  }

  /** Marks a specific port used; 422 when outside the range or taken. */
  async allocate(port: number, field: string): Promise<void> {
    if (!this.contains(port)) {
      throw newStatusError(
        422,
        'Invalid',
        `Service "" is invalid: ${field}: Invalid value: ${port}: provided port is not in the valid range. The range of valid ports is ${this.range}`,
      );
    }
    if (!(await this.offsets.allocate(port - this.min)))
      throw newStatusError(
        422,
        'Invalid',
        `Service "" is invalid: ${field}: Invalid value: ${port}: provided port is already allocated`,
      );
  }

  /** Marks a port used without checks (rebuilding the in-memory set from the stored Services). */
  async restore(port: number): Promise<void> {
    if (this.contains(port)) await this.offsets.allocate(port - this.min);
  }

  /** Hands out the next free port. */
  async allocateNext(): Promise<number> {
    const off = await this.offsets.allocateNext(this.next);
    if (off !== null) {
      this.next = (off + 1) % this.count;
      return this.min + off;
    }
    throw newStatusError(500, 'InternalError', 'Internal error occurred: failed to allocate a nodePort: range is full');
  }

  /** Returns a port to the pool. */
  async release(port: number): Promise<void> {
    if (this.contains(port)) await this.offsets.release(port - this.min);
  }
}
