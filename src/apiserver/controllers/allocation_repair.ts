/**
 * The repair loops of the Service allocators, like upstream's
 * ipallocator/controller/repair.go and portallocator/controller/repair.go:
 * every interval (3 min, and once at start-up) the stored bitmap is compared
 * with the addresses and ports the stored Services hold. One a Service holds
 * but the bitmap misses is marked; one the bitmap holds but no Service does
 * is a leak (a create that failed between allocating and storing, or a
 * server killed there), freed only after it stayed a leak for three passes,
 * since a create may still be in flight. The new bitmap is written with a
 * compare-and-swap against the one read, so a concurrent allocation is never
 * overwritten: on a conflict the pass is skipped and the next one tries again.
 */
import type { Clock, Timer } from '../../clock/index.js';
import { isStorageError, type KeyValue, type Storage } from '../../storage/index.js';
import { Bitmap, decodeRangeAllocation, encodeRangeAllocation } from '../registry/allocator_storage.js';
import type { Obj } from '../object.js';

/** Passes a leak must survive before it is freed (upstream's numRepairsBeforeLeakCleanup). */
export const REPAIRS_BEFORE_LEAK_CLEANUP = 3;

/** One stored range to repair. */
export interface RepairTarget {
  /** The bitmap's storage key, e.g. /registry/ranges/serviceips. */
  key: string;
  /** Offsets in the range. */
  size: number;
  /** The range as written into the RangeAllocation (e.g. 10.96.0.0/12 or 30000-32767). */
  range: string;
  /** The offsets a Service holds in this range (outside offsets are ignored). */
  offsetsOf(svc: Obj): number[];
}

/** What one pass found, per target key. */
export interface RepairResult {
  marked: number;
  leaks: number;
  freed: number;
  /** Whether the pass wrote (false on no change or a lost compare-and-swap). */
  written: boolean;
}

/** Options of the repair controller. */
export interface AllocationRepairOptions {
  storage: Storage;
  /** The stored Services, read consistently. */
  listServices(): Promise<Obj[]>;
  targets: RepairTarget[];
  clock: Clock;
  /** Default 3 min, upstream's repair interval. */
  intervalMs?: number;
  /** Told about each repair, one line each. */
  log?: (msg: string, fields: Record<string, unknown>) => void;
}

const LOST = new Error('the range changed during the repair pass');

/** Runs the repair pass at start and on an interval; see the module comment. */
export class AllocationRepair {
  /** Per key, per leaked offset, the passes it has been seen leaked. */
  private readonly leaks = new Map<string, Map<number, number>>();
  private timer: Timer | undefined;

  constructor(private readonly opts: AllocationRepairOptions) {}

  /** One pass over every target. */
  async runOnce(): Promise<Map<string, RepairResult>> {
    const out = new Map<string, RepairResult>();
    const snapshots = new Map<string, KeyValue | null>();
    // The snapshot first, the Services after: an allocation stored in between shows up in the list, not as a leak.
    for (const t of this.opts.targets) snapshots.set(t.key, await this.read(t.key));
    const services = await this.opts.listServices();
    for (const t of this.opts.targets) out.set(t.key, await this.repair(t, snapshots.get(t.key)!, services));
    return out;
  }

  /** Runs a pass now, then every interval; failed passes are retried at the next. */
  async start(): Promise<void> {
    await this.runOnce();
    this.timer = this.opts.clock.setInterval(
      () => void this.runOnce().catch(() => undefined),
      this.opts.intervalMs ?? 180_000,
    );
  }

  /** Stops the interval. */
  stop(): void {
    this.timer?.cancel();
  }

  private async read(key: string): Promise<KeyValue | null> {
    try {
      return await this.opts.storage.get(key);
    } catch (err) {
      if (isStorageError(err, 'KeyNotFound')) return null;
      throw err;
    }
  }

  private async repair(t: RepairTarget, kv: KeyValue | null, services: Obj[]): Promise<RepairResult> {
    const stored = decodeRangeAllocation(kv, t.size);
    const fresh = new Bitmap(t.size);
    const log = this.opts.log ?? (() => undefined);
    let marked = 0;
    for (const svc of services) {
      for (const off of t.offsetsOf(svc)) {
        if (off < 0 || off >= t.size) continue;
        fresh.set(off, true);
        if (!stored.has(off)) {
          marked++;
          log('allocation repair: a Service holds an offset the range did not have; marking it', { key: t.key, off });
        }
      }
    }
    const seen = this.leaks.get(t.key) ?? new Map<number, number>();
    this.leaks.set(t.key, seen);
    let leaks = 0;
    let freed = 0;
    const stillLeaked = new Set<number>();
    for (const off of stored.offsets()) {
      if (fresh.has(off)) continue;
      const n = (seen.get(off) ?? 0) + 1;
      stillLeaked.add(off);
      if (n >= REPAIRS_BEFORE_LEAK_CLEANUP) {
        freed++;
        seen.delete(off);
        log('allocation repair: freeing a leaked offset no Service holds', { key: t.key, off });
      } else {
        leaks++;
        seen.set(off, n);
        fresh.set(off, true);
      }
    }
    for (const off of [...seen.keys()]) if (!stillLeaked.has(off)) seen.delete(off);
    if (marked === 0 && freed === 0 && kv !== null) return { marked, leaks, freed, written: false };
    const value = encodeRangeAllocation(t.key.split('/').pop()!, t.range, fresh);
    try {
      if (kv === null) await this.opts.storage.create(t.key, value);
      else
        await this.opts.storage.guaranteedUpdate(t.key, (cur) => {
          if (cur === null || cur.modRevision !== kv.modRevision) throw LOST;
          return { value };
        });
    } catch (err) {
      if (err === LOST || isStorageError(err, 'KeyExists') || isStorageError(err, 'KeyNotFound'))
        return { marked, leaks, freed, written: false };
      throw err;
    }
    return { marked, leaks, freed, written: true };
  }
}
