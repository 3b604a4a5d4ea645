/**
 * Allocation bitmaps kept in storage, like upstream's
 * pkg/registry/core/service/allocator/storage: one RangeAllocation-shaped
 * object per range (`/registry/ranges/serviceips`, `.../servicenodeports`)
 * whose `data` is a bitmap of used offsets, changed only by compare-and-swap.
 * Several API servers over one etcd therefore never hand out one address
 * twice. Requests that arrive while a swap is in flight ride on the next one
 * together, so a burst of creates costs one write per batch, not one each, and
 * a conflict with another server re-reads and re-applies the batch.
 */
import type { KeyValue, Storage } from '../../storage/index.js';

/** A set of used offsets in [0, size). */
export interface OffsetAllocator {
  /** Marks `offset` used; false when it already was. */
  allocate(offset: number): Promise<boolean>;
  /** Marks the first free offset at or after `hint` (wrapping) used; null when the range is full. */
  allocateNext(hint: number): Promise<number | null>;
  /** Frees `offset`. */
  release(offset: number): Promise<void>;
}

/** Used offsets held in memory: exact for one server that rebuilds them from the stored Services. */
export class MemoryOffsets implements OffsetAllocator {
  readonly used = new Set<number>();

  constructor(readonly size: number) {}

  /** Marks `offset` used. */
  allocate(offset: number): Promise<boolean> {
    if (this.used.has(offset)) return Promise.resolve(false);
    this.used.add(offset);
    return Promise.resolve(true);
  }

  /** Marks the next free offset used. */
  allocateNext(hint: number): Promise<number | null> {
    for (let i = 0; i < this.size; i++) {
      const off = (hint + i) % this.size;
      if (!this.used.has(off)) {
        this.used.add(off);
        return Promise.resolve(off);
      }
    }
    return Promise.resolve(null);
  }

  /** Frees `offset`. */
  release(offset: number): Promise<void> {
    this.used.delete(offset);
    return Promise.resolve();
  }
}

/** A bitmap of offsets, trimmed of trailing zero bytes when encoded (as upstream's big.Int is of leading ones). */
export class Bitmap {
  private bytes: Uint8Array;

  constructor(
    readonly size: number,
    data?: Uint8Array,
  ) {
    this.bytes = new Uint8Array(Math.ceil(size / 8));
    if (data !== undefined) this.bytes.set(data.subarray(0, this.bytes.length));
  }

  /** Whether `offset` is set. */
  has(offset: number): boolean {
    return (this.bytes[offset >> 3] & (1 << (offset & 7))) !== 0;
  }

  /** Sets or clears `offset`. */
  set(offset: number, on: boolean): void {
    if (on) this.bytes[offset >> 3] |= 1 << (offset & 7);
    else this.bytes[offset >> 3] &= ~(1 << (offset & 7));
  }

  /** The set offsets, ascending. */
  *offsets(): Generator<number> {
    for (let b = 0; b < this.bytes.length; b++)
      if (this.bytes[b] !== 0) for (let i = 0; i < 8; i++) if (this.bytes[b] & (1 << i)) yield b * 8 + i;
  }

  /** The bytes up to the last non-zero one. */
  encode(): Buffer {
    let end = this.bytes.length;
    while (end > 0 && this.bytes[end - 1] === 0) end--;
    return Buffer.from(this.bytes.subarray(0, end));
  }
}

/** The stored object: upstream's RangeAllocation (v1), with the bitmap base64-encoded in `data`. */
export function encodeRangeAllocation(name: string, range: string, bits: Bitmap): Buffer {
  return Buffer.from(
    JSON.stringify({
      kind: 'RangeAllocation',
      apiVersion: 'v1',
      metadata: { name },
      range,
      data: bits.encode().toString('base64'),
    }),
  );
}

/** The bitmap a stored RangeAllocation holds (empty when the key is missing). */
export function decodeRangeAllocation(kv: KeyValue | null, size: number): Bitmap {
  if (kv === null) return new Bitmap(size);
  const o = JSON.parse(kv.value.toString()) as { data?: string };
  return new Bitmap(size, Buffer.from(o.data ?? '', 'base64'));
}

type Op = { kind: 'allocate'; offset: number } | { kind: 'next'; hint: number } | { kind: 'release'; offset: number };
interface Pending {
  op: Op;
  resolve(v: number | boolean | null): void;
  reject(err: unknown): void;
}

/** Used offsets in one stored bitmap, changed by compare-and-swap; see the module comment. */
export class StoredOffsets implements OffsetAllocator {
  private queue: Pending[] = [];
  private flushing = false;
  /** The last value this server read or wrote: the first swap of a batch tries it without a read. */
  private last: KeyValue | undefined;

  constructor(
    private readonly storage: Storage,
    readonly key: string,
    readonly size: number,
    private readonly range: string,
  ) {}

  /** Marks `offset` used in storage. */
  async allocate(offset: number): Promise<boolean> {
    return (await this.submit({ kind: 'allocate', offset })) as boolean;
  }

  /** Marks the next free offset used in storage. */
  async allocateNext(hint: number): Promise<number | null> {
    return (await this.submit({ kind: 'next', hint })) as number | null;
  }

  /** Frees `offset` in storage. */
  async release(offset: number): Promise<void> {
    await this.submit({ kind: 'release', offset });
  }

  private submit(op: Op): Promise<number | boolean | null> {
    return new Promise((resolve, reject) => {
      this.queue.push({ op, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0);
        let results: (number | boolean | null)[] = [];
        try {
          const kv = await this.storage.guaranteedUpdate(
            this.key,
            (cur) => {
              const bits = decodeRangeAllocation(cur, this.size);
              // tryUpdate may run again after a conflict: results come from the last run only.
              results = batch.map((p) => apply(bits, p.op));
              return { value: encodeRangeAllocation(this.key.split('/').pop()!, this.range, bits) };
            },
            { ignoreNotFound: true, ...(this.last === undefined ? {} : { cachedExisting: this.last }) },
          );
          this.last = kv;
          batch.forEach((p, i) => p.resolve(results[i]));
        } catch (err) {
          this.last = undefined;
          for (const p of batch) p.reject(err);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}

function apply(bits: Bitmap, op: Op): number | boolean | null {
  if (op.kind === 'release') {
    bits.set(op.offset, false);
    return true;
  }
  if (op.kind === 'allocate') {
    if (bits.has(op.offset)) return false;
    bits.set(op.offset, true);
    return true;
  }
  for (let i = 0; i < bits.size; i++) {
    const off = (op.hint + i) % bits.size;
    if (!bits.has(off)) {
      bits.set(off, true);
      return off;
    }
  }
  return null;
}
